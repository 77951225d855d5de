import {
  type ClientCapabilities,
  type Implementation,
  InvalidParamsError,
  InvalidRequestError,
  isObject,
  Method,
  ResourceNotFoundError,
  type Result,
} from '@gantry/protocol';
import { isLoggingLevel, LOG_LEVELS } from '../context/log-levels';
import type { Registry } from '../registry/registry';
import type { MethodHandler } from './method-table';
import { uriParam } from './resource-handlers';
import type { ServerSession } from './server-session';

/** A method only a session has: it reads or changes the state of its connection. */
export type SessionMethod = MethodHandler<ServerSession>;

/**
 * `result` once the changed session is stored (a cluster replica), so the next request may go
 * to any node; at once on a single node.
 */
function stored<T extends Result>(session: ServerSession, result: T): T | Promise<T> {
  const saving = session.persist();
  return saving ? saving.then(() => result) : result;
}

/** `initialize` (MCP 2025-11-25, Basic / Lifecycle §Initialization): once per session. */
const initialize: SessionMethod = (params, _inbound, session) => {
  if (session.isInitialized) {
    throw new InvalidRequestError(
      'Invalid request: the session is already initialized; "initialize" may be sent only once',
    );
  }
  if (!isObject(params)) {
    throw new InvalidParamsError(
      'Invalid params: initialize needs { protocolVersion, capabilities, clientInfo }',
    );
  }
  if (typeof params.protocolVersion !== 'string') {
    throw new InvalidParamsError('Invalid params: initialize needs "protocolVersion" as a string');
  }
  if (!isObject(params.capabilities)) {
    throw new InvalidParamsError('Invalid params: initialize needs "capabilities" as an object');
  }
  const clientInfo = params.clientInfo;
  if (
    !isObject(clientInfo) ||
    typeof clientInfo.name !== 'string' ||
    typeof clientInfo.version !== 'string'
  ) {
    throw new InvalidParamsError(
      'Invalid params: initialize needs "clientInfo" with string "name" and "version"',
    );
  }
  return stored(
    session,
    session.initialized(
      params.protocolVersion,
      clientInfo as unknown as Implementation,
      params.capabilities as ClientCapabilities,
    ),
  );
};

/** `logging/setLevel`: the session then gets log messages at that level and above. */
const setLevel: SessionMethod = (params, _inbound, session) => {
  const level = params?.level;
  if (!isLoggingLevel(level)) {
    throw new InvalidParamsError(
      `Invalid params: unknown log level ${JSON.stringify(level)}; use one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  session.logLevel = level;
  return stored(session, {} as Result);
};

/**
 * The methods of the session era alone, typed on the session whose state they read or change:
 * `initialize`, `ping`, `logging/setLevel`, and with resources `resources/subscribe` and
 * `resources/unsubscribe`. The stateless era (2026-07-28) has none of them.
 */
export function sessionMethods(registry: Registry, resources: boolean): [string, SessionMethod][] {
  const methods: [string, SessionMethod][] = [
    [Method.Initialize, initialize],
    [Method.Ping, () => ({})],
    [Method.LoggingSetLevel, setLevel],
  ];
  if (!resources) return methods;

  const subscribe: SessionMethod = (params, _inbound, session) => {
    const uri = uriParam(params, Method.ResourcesSubscribe);
    if (!registry.resolve(uri)) throw new ResourceNotFoundError(`Resource not found: ${uri}`, { uri });
    session.subscriptions.add(uri);
    return stored(session, {} as Result);
  };
  const unsubscribe: SessionMethod = (params, _inbound, session) => {
    session.subscriptions.delete(uriParam(params, Method.ResourcesUnsubscribe));
    return stored(session, {} as Result);
  };
  methods.push([Method.ResourcesSubscribe, subscribe], [Method.ResourcesUnsubscribe, unsubscribe]);
  return methods;
}
