import {
  InboundRequest,
  InternalError,
  isStatelessRequest,
  JSONRPC_VERSION,
  type JSONRPCRequest,
  type JSONRPCResponse,
  McpError,
  notificationOf,
  type OutboundMessage,
  RequestCancelledError,
  type RequestOptions,
  type Result,
  toWireError,
} from '@gantry/protocol';
import { requestLogger } from '../execution/handler-failure';
import type { Logger } from '../logger';
import type { StatelessDispatcher } from '../stateless/stateless-dispatcher';
import type { Exchange } from '../transports/connection-host';
import { checkParamsDepth } from './params-depth';

/** What serving an exchange needs of the engine. */
export interface ExchangeEngine {
  readonly logger: Logger;
  readonly maxParamsDepth: number;
  readonly stateless: Pick<StatelessDispatcher, 'handle'>;
}

const NO_SERVER_REQUESTS: Pick<InboundRequest, 'sendRequest'>['sendRequest'] = () =>
  Promise.reject(
    new InternalError('Internal error: a stateless-era request cannot send requests to the client'),
  );

/**
 * Serves one stateless-era request that stands alone (`ConnectionHost.exchange`): no session
 * and no Peer, one `InboundRequest` over the exchange. Resolves with the response to send, or
 * undefined once the exchange was aborted; never rejects.
 */
export function serveExchange(
  engine: ExchangeEngine,
  request: JSONRPCRequest,
  exchange: Exchange,
): Promise<JSONRPCResponse | undefined> {
  const channel = {
    notify: async (message: OutboundMessage) => {
      await exchange.notify(notificationOf(message));
    },
    request: NO_SERVER_REQUESTS as <T extends Result>(m: OutboundMessage, o: RequestOptions) => Promise<T>,
  };
  const inbound = new InboundRequest(channel, request);
  const signal = exchange.signal;
  if (signal) {
    if (signal.aborted) return Promise.resolve(undefined);
    signal.addEventListener('abort', () => inbound.cancel(signal.reason), { once: true });
  }
  exchange.bindCancel?.((reason) => inbound.cancel(reason ?? new RequestCancelledError(request.method)));
  const answer = (
    result: Result | undefined,
    failed = false,
    error?: unknown,
  ): JSONRPCResponse | undefined => {
    if (inbound.cancelled) return undefined;
    if (failed) {
      // A stateless exchange has no session: the line names the request alone.
      if (!(error instanceof McpError))
        requestLogger(engine.logger, inbound).error('Request handler failed:', error);
      return { jsonrpc: JSONRPC_VERSION, id: request.id, error: toWireError(error).toJSON() };
    }
    return { jsonrpc: JSONRPC_VERSION, id: request.id, result: result ?? {} };
  };
  try {
    checkParamsDepth(request.method, request.params, engine.maxParamsDepth);
    if (!isStatelessRequest(request)) {
      throw new InternalError('Internal error: exchange() serves stateless-era requests only');
    }
    const outcome = engine.stateless.handle(request, inbound, exchange);
    if (!(outcome instanceof Promise)) return Promise.resolve(answer(outcome));
    return outcome.then(
      (result) => answer(result),
      (error) => answer(undefined, true, error),
    );
  } catch (error) {
    return Promise.resolve(answer(undefined, true, error));
  }
}
