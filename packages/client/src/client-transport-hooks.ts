/**
 * Optional methods a client transport may offer; the {@link Client} calls them when present.
 * Only the Streamable HTTP transport has them: the Peer and stdio know nothing of sessions.
 */
export interface ClientTransportHooks {
  /**
   * Told the protocol version the server answered in `initialize`, before
   * `notifications/initialized` is sent. Streamable HTTP sends it as `MCP-Protocol-Version`
   * on every later request (2025-06-18+ transports).
   */
  setProtocolVersion?(version: string): void;
  /**
   * Given a function that performs the handshake again (`initialize`, then
   * `notifications/initialized`) on the same connection. The transport calls it when the
   * server has forgotten the session (HTTP 404) and waits for it before re-sending.
   */
  setSessionLostHandler?(handler: (() => Promise<void>) | undefined): void;
}
