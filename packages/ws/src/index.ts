export { type ApiKeysOptions, apiKeys } from '@gantry/core';
export {
  attachWebSocket,
  MCP_SUBPROTOCOL,
  type WebSocketAttachment,
  type WebSocketBindingOptions,
  type WebSocketListener,
  type WebSocketOptions,
  websocket,
} from './websocket';
export {
  DEFAULT_WEBSOCKET_FLOW,
  type WebSocketFlowOptions,
  type WebSocketFlowState,
  WebSocketServerTransport,
  type WebSocketTransportOptions,
  WsCloseCode,
} from './websocket-server-transport';
