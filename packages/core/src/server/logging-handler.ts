import { InvalidParamsError, Method, type Result } from '@gantry/protocol';
import { isLoggingLevel, LOG_LEVELS } from '../context/log-levels';
import type { MethodHandler } from './method-table';
import type { ServerSession } from './server-session';

/** `logging/setLevel`: the session then gets log messages at that level and above. */
export function loggingHandler(): [string, MethodHandler] {
  const setLevel: MethodHandler = (params, _inbound, session) => {
    const level = params?.level;
    if (!isLoggingLevel(level)) {
      throw new InvalidParamsError(
        `Invalid params: unknown log level ${JSON.stringify(level)}; use one of ${LOG_LEVELS.join(', ')}`,
      );
    }
    (session as ServerSession).logLevel = level;
    return {} as Result;
  };
  return [Method.LoggingSetLevel, setLevel];
}
