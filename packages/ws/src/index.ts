export {
  attachWebSocket,
  MCP_SUBPROTOCOL,
  type WebSocketAttachment,
  type WebSocketBindingOptions,
  type WebSocketListener,
  type WebSocketOptions,
  websocket,
} from './websocket';
export { WebSocketServerTransport, WsCloseCode } from './websocket-server-transport';
