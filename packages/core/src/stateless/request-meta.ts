import {
  type ClientCapabilities,
  type Implementation,
  InvalidParamsError,
  isObject,
  type LoggingLevel,
  MetaKey,
  type RequestParams,
  STATELESS_PROTOCOL_VERSIONS,
  unsupportedStatelessVersion,
} from '@gantry/protocol';
import { isLoggingLevel, LOG_LEVELS } from '../context/log-levels';

/** What a stateless-era request says of itself in `_meta` (MCP 2026-07-28): nothing comes from earlier requests. */
export interface RequestMeta {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  /** Without it the request gets no log messages. */
  readonly logLevel: LoggingLevel | undefined;
  readonly clientInfo: Implementation | undefined;
}

/**
 * Reads and checks the `_meta` of a stateless-era request (one `isStatelessRequest` accepted).
 * Throws the JSON-RPC error to answer: −32602 for a missing or malformed key, an
 * `UnsupportedProtocolVersionError` for a version this server does not speak.
 */
export function readRequestMeta(params: RequestParams | undefined): RequestMeta {
  const meta = params?._meta as Record<string, unknown>;
  const version = meta[MetaKey.ProtocolVersion];
  if (typeof version !== 'string') {
    throw new InvalidParamsError(
      `Invalid params: _meta["${MetaKey.ProtocolVersion}"] must be a protocol version string`,
    );
  }
  if (!STATELESS_PROTOCOL_VERSIONS.includes(version)) {
    throw unsupportedStatelessVersion(version);
  }
  const capabilities = meta[MetaKey.ClientCapabilities];
  if (!isObject(capabilities)) {
    throw new InvalidParamsError(
      `Invalid params: _meta["${MetaKey.ClientCapabilities}"] is required on every ${version} request (an object; {} declares none)`,
    );
  }
  const level = meta[MetaKey.LogLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    throw new InvalidParamsError(
      `Invalid params: unknown log level ${JSON.stringify(level)} in _meta["${MetaKey.LogLevel}"]; use one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  const info = meta[MetaKey.ClientInfo];
  return {
    protocolVersion: version,
    clientCapabilities: capabilities as ClientCapabilities,
    logLevel: level,
    clientInfo:
      isObject(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
  };
}
