/** The newest session-era revision Gantry speaks. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Session-era revisions answered with themselves in `initialize`, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
]);

/**
 * Pre-release ids that some early clients still send. They are accepted and echoed back,
 * served with the semantics of the version they map to, and never advertised
 * (`2024-10-07` was never a published revision; the MCP specification lists 2024-11-05 as the first).
 */
const ALIASES: ReadonlyMap<string, string> = new Map([['2024-10-07', '2024-11-05']]);

/** What `initialize` settles on for a requested version. */
export interface NegotiatedVersion {
  /** The version answered in `InitializeResult.protocolVersion`. */
  readonly answered: string;
  /** The spec revision whose behaviour applies. */
  readonly behaviour: string;
}

/**
 * 2025-11-25 lifecycle: a supported version MUST be answered with itself; otherwise the server
 * answers another version it supports (our latest), and the client decides whether to go on.
 */
export function negotiateProtocolVersion(requested: unknown): NegotiatedVersion {
  if (typeof requested === 'string') {
    if (SUPPORTED_PROTOCOL_VERSIONS.includes(requested)) return { answered: requested, behaviour: requested };
    const alias = ALIASES.get(requested);
    if (alias) return { answered: requested, behaviour: alias };
  }
  return { answered: LATEST_PROTOCOL_VERSION, behaviour: LATEST_PROTOCOL_VERSION };
}

/** True when `version` (a behaviour version) is at least `minimum`; ids compare as dates. */
export function versionAtLeast(version: string, minimum: string): boolean {
  return version >= minimum;
}
