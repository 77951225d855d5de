// The `_meta.ui` of a view's content (MCP Apps 2026-01-26 › UI Resource, McpUiResourceMeta):
// the CSP domains the host allows, the iframe permissions, the border and the sandbox origin.

/** Domains the view may reach; each one becomes a CSP source list entry on the host. */
export interface UiCsp {
  /** `connect-src`: fetch, XHR and WebSocket origins (`https://api.example.com`, `wss://live.example.com`). */
  connectDomains?: string[];
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src` origins (`https://*.cdn.example.com`). */
  resourceDomains?: string[];
  /** `frame-src` origins; without them the host sends `frame-src 'none'`. */
  frameDomains?: string[];
  /** `base-uri` origins; without them the host sends `base-uri 'self'`. */
  baseUriDomains?: string[];
}

/** Browser features the view asks for (the iframe's `allow` attribute); `true` to ask. */
export interface UiPermissions {
  camera?: boolean;
  microphone?: boolean;
  geolocation?: boolean;
  clipboardWrite?: boolean;
}

/** How the view is shown, as `@UiResource` takes it. */
export interface UiPresentation {
  csp?: UiCsp;
  permissions?: UiPermissions;
  /** `true`: the host draws a border and background; `false`: none; absent: the host decides. */
  prefersBorder?: boolean;
  /** A dedicated sandbox origin for the view; its format is the host's (e.g. `a1b2.example-content.com`). */
  domain?: string;
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** `scheme://host[:port]`, the host optionally `*.`-prefixed; no path, query or fragment. */
const ORIGIN = new RegExp(`^(https?|wss?)://(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*(?::\\d{1,5})?$`);

/** What is wrong with one CSP domain, or undefined. */
export function cspDomainProblem(domain: unknown, key: (typeof CSP_KEYS)[number]): string | undefined {
  if (typeof domain !== 'string') return `must be a string origin such as "https://cdn.example.com"`;
  const match = ORIGIN.exec(domain);
  if (!match) {
    return 'is not an origin: write scheme://host[:port] (https://cdn.example.com, or https://*.example.com for its subdomains), with no path, quotes or trailing slash';
  }
  if (match[1].startsWith('ws') && key !== 'connectDomains') {
    return 'is a WebSocket origin, which only connectDomains (connect-src) can use';
  }
  const port = /:(\d+)$/.exec(domain);
  if (port && Number(port[1]) > 65535) return 'has a port above 65535';
  return undefined;
}

/**
 * Checks the presentation options and builds the wire `_meta.ui` from the given ones only.
 * Throws a `TypeError` naming the option (after `where`) when one is wrong.
 */
export function uiResourceMeta(where: string, options: UiPresentation): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const { csp, permissions, prefersBorder, domain } = options;
  if (csp !== undefined) {
    if (typeof csp !== 'object' || csp === null || Array.isArray(csp)) {
      throw new TypeError(`${where}: csp must be an object with ${CSP_KEYS.join(', ')}`);
    }
    const wire: Record<string, string[]> = {};
    for (const key of Object.keys(csp)) {
      if (!(CSP_KEYS as readonly string[]).includes(key)) {
        throw new TypeError(
          `${where}: unknown csp option '${key}'; known options are ${CSP_KEYS.join(', ')}`,
        );
      }
    }
    for (const key of CSP_KEYS) {
      const domains = csp[key];
      if (domains === undefined) continue;
      if (!Array.isArray(domains)) throw new TypeError(`${where}: csp.${key} must be an array of origins`);
      domains.forEach((value, index) => {
        const problem = cspDomainProblem(value, key);
        if (problem)
          throw new TypeError(`${where}: csp.${key}[${index}] ${JSON.stringify(value)} ${problem}`);
      });
      wire[key] = [...domains];
    }
    meta.csp = wire;
  }
  if (permissions !== undefined) {
    if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions)) {
      throw new TypeError(`${where}: permissions must be an object with ${PERMISSION_KEYS.join(', ')}`);
    }
    const wire: Record<string, object> = {};
    for (const [key, value] of Object.entries(permissions)) {
      if (!(PERMISSION_KEYS as readonly string[]).includes(key)) {
        throw new TypeError(
          `${where}: unknown permission '${key}'; known permissions are ${PERMISSION_KEYS.join(', ')}`,
        );
      }
      if (typeof value !== 'boolean')
        throw new TypeError(`${where}: permissions.${key} must be true or false`);
      // The spec's wire form of a requested permission is an empty object.
      if (value) wire[key] = {};
    }
    meta.permissions = wire;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') throw new TypeError(`${where}: prefersBorder must be a boolean`);
    meta.prefersBorder = prefersBorder;
  }
  if (domain !== undefined) {
    if (typeof domain !== 'string' || domain === '' || /\s/.test(domain)) {
      throw new TypeError(
        `${where}: domain must be a non-empty string without spaces (the sandbox origin, in the host's format)`,
      );
    }
    meta.domain = domain;
  }
  return meta;
}
