// The floor: what any stdio JSON-RPC server must do at least (split lines, JSON.parse,
// JSON.stringify, write), with no MCP logic. Every request gets a tools/call-shaped result;
// a stateless-era request (its `_meta` names a protocol version, MCP 2026-07-28) gets the
// members that era's results carry (`resultType`, `_meta` serverInfo), so the bytes it moves
// are what any server of that era moves. The answers to one input chunk leave in one write,
// as a careful server's would. In the observability section (GANTRY_BENCH_OTEL=sdk) each answer
// is also instrumented the least way semantic conventions ask (./otel-floor.ts).
import { type FloorInstrumentation, floorInstrumentation } from './otel-floor';

const serverInfo = { name: 'bench-floor', version: '1.0.0' };
const STATELESS_RESULT_META = { 'io.modelcontextprotocol/serverInfo': serverInfo };
let buffered = '';
let instrument: FloorInstrumentation;
/** The version initialize negotiated (the session era's requests do not carry it). */
let sessionVersion: string | undefined;

function answer(line: string): string {
  const message = JSON.parse(line);
  if (message.id === undefined) return ''; // a notification: nothing to answer
  const statelessVersion = message.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  if (message.method === 'initialize') sessionVersion = message.params.protocolVersion;
  return instrument(
    {
      id: message.id,
      method: message.method,
      tool: message.method === 'tools/call' ? message.params?.name : undefined,
      protocolVersion: statelessVersion ?? sessionVersion,
    },
    () => respond(message),
  );
}

function respond(message: { id: unknown; method: string; params?: any }): string {
  const result =
    message.method === 'initialize'
      ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo }
      : message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === undefined
        ? { content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] }
        : {
            content: [{ type: 'text', text: message.params.arguments?.text ?? '' }],
            resultType: 'complete',
            _meta: STATELESS_RESULT_META,
          };
  return `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`;
}

function onData(chunk: string): void {
  buffered += chunk;
  let output = '';
  let start = 0;
  for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n', start)) {
    if (newline > start) output += answer(buffered.slice(start, newline));
    start = newline + 1;
  }
  buffered = buffered.slice(start);
  if (output !== '') process.stdout.write(output);
}

floorInstrumentation('pipe').then((instrumentation) => {
  instrument = instrumentation;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', onData);
});
