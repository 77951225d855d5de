export {
  CapabilityMissingError,
  ConnectionClosedError,
  ErrorCode,
  GantryError,
  HeaderMismatchError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LocalErrorCode,
  McpError,
  MethodNotFoundError,
  MissingRequiredClientCapabilityError,
  NotConnectedError,
  ParseError,
  RequestCancelledError,
  RequestTimeoutError,
  ResourceNotFoundError,
  UnsupportedProtocolVersionError,
  UrlElicitationRequiredError,
} from './errors';
export { DEFAULT_MAX_LINE_BYTES, encodeLine, LineDecoder, type LineDecoderEvents } from './framing';
export { InMemoryTransport } from './in-memory';
export {
  type ClassifiedMessage,
  classifyMessage,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isRequestId,
  JSONRPC_VERSION,
  type JSONRPCErrorObject,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type JSONRPCResultResponse,
  type Meta,
  type OutboundMessage,
  type ProgressToken,
  type RequestId,
  type RequestParams,
  type Result,
} from './jsonrpc';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  InboundRequest,
  Peer,
  type PeerOptions,
  type RequestHandler,
  type RequestOptions,
} from './peer';
export type { SendOptions, Transport, TransportSink, WireMessage } from './transport';
export * from './types';
export {
  LATEST_PROTOCOL_VERSION,
  type NegotiatedVersion,
  negotiateProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  versionAtLeast,
} from './versions';
