// The WebSocket floor: what any JSON-RPC-over-WebSocket server costs at least with `ws`
// (upgrade with subprotocol mcp, frame parsing, JSON.parse, JSON.stringify, one frame per
// answer), with no MCP logic: every request gets a tools/call-shaped result, initialize an
// initialize-shaped one, and notifications nothing.
import { WebSocketServer } from 'ws';
import { portOf, serveBenchmark } from '../http/harness';

interface Message {
  id?: number | string;
  method?: string;
  params?: { protocolVersion?: string; arguments?: { text?: string } };
}

const serverInfo = { name: 'bench-floor-ws', version: '1.0.0' };

serveBenchmark(async () => {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
  });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Message;
      if (message.id === undefined) return;
      const result =
        message.method === 'initialize'
          ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo }
          : { content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] };
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  return portOf(wss.address());
});
