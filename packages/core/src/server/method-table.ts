import type { InboundRequest, RequestParams, Result } from '@gantry/protocol';
import type { ServerSession } from './server-session';

/** Handles one MCP method for an initialized session. */
export type MethodHandler = (
  params: RequestParams | undefined,
  inbound: InboundRequest,
  session: ServerSession,
) => Result | Promise<Result>;

/** Method name → handler, built once per server: dispatch is one `Map` lookup. */
export type MethodTable = ReadonlyMap<string, MethodHandler>;
