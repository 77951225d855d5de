import type { ClientCapabilities } from '@gantry/protocol';

/**
 * The extensions the client declared for this request (MCP 2026-07-28: the request's own
 * `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`; session era: what
 * `initialize` declared). A settings object is the client's; ids the server does not know are
 * simply never asked about.
 */
export class ClientExtensions {
  constructor(
    private readonly capabilities: ClientCapabilities,
    private readonly missing: (capabilities: ClientCapabilities, message: string) => Error,
  ) {}

  /** True when the client declared `id` (with a settings object, as SEP-2133 has it). */
  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** The client's settings for `id`, or undefined when it did not declare it. */
  get<T extends object = Record<string, unknown>>(id: string): T | undefined {
    const declared = this.capabilities.extensions;
    if (typeof declared !== 'object' || declared === null) return undefined;
    const settings = (declared as Record<string, unknown>)[id];
    return typeof settings === 'object' && settings !== null && !Array.isArray(settings)
      ? (settings as T)
      : undefined;
  }

  /** Every extension id the client declared. */
  ids(): string[] {
    const declared = this.capabilities.extensions;
    if (typeof declared !== 'object' || declared === null) return [];
    return Object.keys(declared).filter((id) => this.has(id));
  }

  /**
   * The client's settings for `id`; when it did not declare it, throws the era's error for a
   * missing client capability: in 2026-07-28, −32021 with `data.requiredCapabilities`
   * `{ extensions: { [id]: {} } }` (HTTP 400); in the session era, a `CapabilityMissingError`
   * (a tool answers it as a tool error).
   */
  require<T extends object = Record<string, unknown>>(id: string, message?: string): T {
    const settings = this.get<T>(id);
    if (settings !== undefined) return settings;
    throw this.missing(
      { extensions: { [id]: {} } },
      message ?? `this request needs the client extension ${id}, which the client did not declare`,
    );
  }
}
