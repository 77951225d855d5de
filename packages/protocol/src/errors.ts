import type { JSONRPCErrorObject } from './jsonrpc';
import type { UrlElicitation } from './types';

/**
 * Every error code that crosses the wire, in one place (JSON-RPC 2.0 §5.1, MCP 2025-11-25
 * `schema.ts`, and the 2026-07-28 renumbering).
 */
export enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  /**
   * JSON-RPC 2.0 §5.1 implementation-defined server error: what HTTP refusals carry when no
   * other code fits (a forbidden Host or Origin, a failed authentication).
   */
  ServerError = -32000,
  /** Session era (2024-11-05 … 2025-11-25). The stateless era answers −32602 instead. */
  ResourceNotFound = -32002,
  /** 2025-11-25: the request needs the user to complete a URL-mode elicitation first. */
  UrlElicitationRequired = -32042,
  /** 2026-07-28: an HTTP routing header does not match the body. */
  HeaderMismatch = -32020,
  /** 2026-07-28: the handler needs a client capability the request did not declare. */
  MissingRequiredClientCapability = -32021,
  /** 2026-07-28: the request's protocol version is not supported. */
  UnsupportedProtocolVersion = -32022,
  /** Sampling: the user rejected the request (client side). */
  UserRejected = -1,
}

/**
 * An error that is sent to the peer as a JSON-RPC error object. Throw one (or a subclass) from
 * a handler to answer with a protocol error instead of a result.
 */
export class McpError extends Error {
  override name = 'McpError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The JSON-RPC error object, exactly as it travels. */
  toJSON(): JSONRPCErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds the matching subclass from an error object received from the peer. */
  static fromError(error: JSONRPCErrorObject): McpError {
    const Ctor = errorClassByCode.get(error.code);
    if (Ctor) return new Ctor(error.message, error.data);
    return new McpError(error.code, error.message, error.data);
  }
}

export class ParseError extends McpError {
  override name = 'ParseError';
  constructor(message = 'Parse error', data?: unknown) {
    super(ErrorCode.ParseError, message, data);
  }
}

export class InvalidRequestError extends McpError {
  override name = 'InvalidRequestError';
  constructor(message = 'Invalid request', data?: unknown) {
    super(ErrorCode.InvalidRequest, message, data);
  }
}

export class MethodNotFoundError extends McpError {
  override name = 'MethodNotFoundError';
  constructor(message = 'Method not found', data?: unknown) {
    super(ErrorCode.MethodNotFound, message, data);
  }
}

export class InvalidParamsError extends McpError {
  override name = 'InvalidParamsError';
  constructor(message = 'Invalid params', data?: unknown) {
    super(ErrorCode.InvalidParams, message, data);
  }
}

export class InternalError extends McpError {
  override name = 'InternalError';
  constructor(message = 'Internal error', data?: unknown) {
    super(ErrorCode.InternalError, message, data);
  }
}

export class ResourceNotFoundError extends McpError {
  override name = 'ResourceNotFoundError';
  constructor(message = 'Resource not found', data?: unknown) {
    super(ErrorCode.ResourceNotFound, message, data);
  }
}

/**
 * 2025-11-25: the request cannot proceed until the user completes the URL-mode elicitations in
 * `data.elicitations` (−32042).
 *
 * @example
 * ```ts
 * throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId, url, message: 'Sign in to GitHub' }]);
 * ```
 */
export class UrlElicitationRequiredError extends McpError {
  override name = 'UrlElicitationRequiredError';
  constructor(elicitationsOrMessage: UrlElicitation[] | string = [], data?: unknown) {
    if (typeof elicitationsOrMessage === 'string') {
      super(ErrorCode.UrlElicitationRequired, elicitationsOrMessage, data);
    } else {
      const first = elicitationsOrMessage[0]?.message;
      super(ErrorCode.UrlElicitationRequired, first ?? 'URL elicitation required', {
        elicitations: elicitationsOrMessage,
      });
    }
  }

  /** The elicitations the user must complete. */
  get elicitations(): UrlElicitation[] {
    return ((this.data as { elicitations?: UrlElicitation[] } | undefined)?.elicitations ??
      []) as UrlElicitation[];
  }
}

export class HeaderMismatchError extends McpError {
  override name = 'HeaderMismatchError';
  constructor(message = 'Header mismatch', data?: unknown) {
    super(ErrorCode.HeaderMismatch, message, data);
  }
}

export class MissingRequiredClientCapabilityError extends McpError {
  override name = 'MissingRequiredClientCapabilityError';
  constructor(message = 'Missing required client capability', data?: unknown) {
    super(ErrorCode.MissingRequiredClientCapability, message, data);
  }
}

export class UnsupportedProtocolVersionError extends McpError {
  override name = 'UnsupportedProtocolVersionError';
  constructor(message = 'Unsupported protocol version', data?: unknown) {
    super(ErrorCode.UnsupportedProtocolVersion, message, data);
  }
}

const errorClassByCode = new Map<number, new (message?: string, data?: unknown) => McpError>([
  [ErrorCode.ParseError, ParseError],
  [ErrorCode.InvalidRequest, InvalidRequestError],
  [ErrorCode.MethodNotFound, MethodNotFoundError],
  [ErrorCode.InvalidParams, InvalidParamsError],
  [ErrorCode.InternalError, InternalError],
  [ErrorCode.ResourceNotFound, ResourceNotFoundError],
  [ErrorCode.UrlElicitationRequired, UrlElicitationRequiredError],
  [ErrorCode.HeaderMismatch, HeaderMismatchError],
  [ErrorCode.MissingRequiredClientCapability, MissingRequiredClientCapabilityError],
  [ErrorCode.UnsupportedProtocolVersion, UnsupportedProtocolVersionError],
]);

/**
 * Stable codes of local errors: errors raised on this side that never cross the wire.
 * A retired code is never reused.
 */
export const LocalErrorCode = {
  RequestTimeout: 'GANTRY_ERR_REQUEST_TIMEOUT',
  ConnectionClosed: 'GANTRY_ERR_CONNECTION_CLOSED',
  NotConnected: 'GANTRY_ERR_NOT_CONNECTED',
  RequestCancelled: 'GANTRY_ERR_REQUEST_CANCELLED',
  MessageTooLarge: 'GANTRY_ERR_MESSAGE_TOO_LARGE',
  AlreadyStarted: 'GANTRY_ERR_ALREADY_STARTED',
  Bootstrap: 'GANTRY_ERR_BOOTSTRAP',
  InvalidDecorator: 'GANTRY_ERR_INVALID_DECORATOR',
  UnknownProvider: 'GANTRY_ERR_UNKNOWN_PROVIDER',
  CircularDependency: 'GANTRY_ERR_CIRCULAR_DEPENDENCY',
  MissingMetadata: 'GANTRY_ERR_MISSING_METADATA',
  DuplicateName: 'GANTRY_ERR_DUPLICATE_NAME',
  ProtocolViolation: 'GANTRY_ERR_PROTOCOL_VIOLATION',
  CapabilityMissing: 'GANTRY_ERR_CAPABILITY_MISSING',
  ElicitationInvalid: 'GANTRY_ERR_ELICITATION_INVALID',
  PeerRequestFailed: 'GANTRY_ERR_PEER_REQUEST_FAILED',
  InputRequired: 'GANTRY_ERR_INPUT_REQUIRED',
  /** An OAuth authorization the client ran failed (timed out, was refused or cancelled). */
  Authorization: 'GANTRY_ERR_AUTHORIZATION',
} as const;

export type LocalErrorCode = (typeof LocalErrorCode)[keyof typeof LocalErrorCode];

/** Base class of local errors; `code` is a stable `GANTRY_ERR_*` string. */
export class GantryError extends Error {
  override name = 'GantryError';

  constructor(
    readonly code: LocalErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An outbound request got no response in time. */
export class RequestTimeoutError extends GantryError {
  override name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(LocalErrorCode.RequestTimeout, `Request "${method}" timed out after ${timeoutMs} ms`);
  }
}

/** The connection closed while a request was pending. */
export class ConnectionClosedError extends GantryError {
  override name = 'ConnectionClosedError';
  constructor(message = 'Connection closed', options?: { cause?: unknown }) {
    super(LocalErrorCode.ConnectionClosed, message, options);
  }
}

/** A message was sent before the connection was started, or after it closed. */
export class NotConnectedError extends GantryError {
  override name = 'NotConnectedError';
  constructor(message = 'Not connected: start the connection before sending') {
    super(LocalErrorCode.NotConnected, message);
  }
}

/** An outbound request was cancelled through its `AbortSignal`. */
export class RequestCancelledError extends GantryError {
  override name = 'RequestCancelledError';
  constructor(
    readonly method: string,
    readonly reason?: unknown,
  ) {
    super(
      LocalErrorCode.RequestCancelled,
      `Request "${method}" was cancelled${reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : ''}`,
    );
  }
}

/** A handler needs a client capability the client did not declare (ctx.sample, ctx.elicit, ctx.roots). */
export class CapabilityMissingError extends GantryError {
  override name = 'CapabilityMissingError';
  constructor(message: string) {
    super(LocalErrorCode.CapabilityMissing, message);
  }
}

/**
 * The other side answered one of our requests with a JSON-RPC error (e.g. the client refused
 * `sampling/createMessage`). Local: inside a tool it becomes a tool error, not the call's own
 * JSON-RPC error. The peer's error is `cause`.
 */
export class PeerRequestError extends GantryError {
  override name = 'PeerRequestError';
  constructor(
    readonly method: string,
    override readonly cause: McpError,
  ) {
    super(
      LocalErrorCode.PeerRequestFailed,
      `The client answered ${method} with error ${cause.code}: ${cause.message}`,
      { cause },
    );
  }
}

/** Turns a peer's JSON-RPC error for `method` into a `PeerRequestError`; other errors pass. */
export function fromPeer(method: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof McpError ? new PeerRequestError(method, error) : error;
  };
}

/**
 * The JSON-RPC error to answer for what a handler threw: an `McpError` as it is, anything else
 * −32603 with its message only (stacks stay on this side).
 */
export function toWireError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`Internal error: ${message}`);
}
