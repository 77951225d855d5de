import type { ParamHeader } from './param-headers';

/**
 * Optional members a client transport may offer; the {@link Client} uses them when present.
 * The Peer knows nothing of sessions, eras or HTTP headers: these hooks are how the Client
 * tells the transport what only the Client knows.
 */
export interface ClientTransportHooks {
  /**
   * How the transport carries the stateless era (2026-07-28):
   * - absent: one message stream (stdio, WebSocket, in-memory); era probes use
   *   `probeTimeoutMs`, because a session-era server may never answer `server/discover`;
   * - `'http'`: one POST per request with the 2026-07-28 request-metadata headers; a probe is
   *   answered definitely (HTTP status + body), so it waits the normal request timeout;
   * - `'session-only'`: the transport cannot carry it (HTTP+SSE of 2024-11-05).
   */
  readonly eraBinding?: 'http' | 'session-only';
  /**
   * Identifies the server for the era cache (`http:` origin + path, `stdio:` command + args):
   * a client remembers which era a server spoke and tries that one first next time.
   */
  readonly eraCacheKey?: string;
  /**
   * Told the protocol version the server answered in `initialize`, before
   * `notifications/initialized` is sent. Streamable HTTP sends it as `MCP-Protocol-Version`
   * on every later session-era request (2025-06-18+ transports). Stateless-era requests
   * carry their version in `_meta`, which the transport mirrors itself.
   */
  setProtocolVersion?(version: string): void;
  /**
   * Given a function that performs the handshake again (`initialize`, then
   * `notifications/initialized`) on the same connection. The transport calls it when the
   * server has forgotten the session (HTTP 404) and waits for it before re-sending.
   */
  setSessionLostHandler?(handler: (() => Promise<void>) | undefined): void;
  /**
   * Given the `x-mcp-header` annotations the Client learnt from `tools/list`: the transport
   * mirrors those arguments of a stateless-era `tools/call` into `Mcp-Param-{Name}` headers
   * (2026-07-28 streamable HTTP §"Custom Headers from Tool Parameters").
   */
  setParamHeaders?(lookup: ((tool: string) => readonly ParamHeader[] | undefined) | undefined): void;
}
