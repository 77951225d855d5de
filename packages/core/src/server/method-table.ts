import type { InboundRequest, RequestParams, Result } from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';

/**
 * Handles one MCP method for the call `session`: by default a method both eras serve (a
 * `ServerSession` or a `StatelessCall`); `MethodHandler<ServerSession>` for a session-only one.
 */
export type MethodHandler<S extends ContextSession = ContextSession> = (
  params: RequestParams | undefined,
  inbound: InboundRequest,
  session: S,
) => Result | Promise<Result>;

/** Method name → handler, built once per server: dispatch is one `Map` lookup. */
export type MethodTable<S extends ContextSession = ContextSession> = ReadonlyMap<string, MethodHandler<S>>;
