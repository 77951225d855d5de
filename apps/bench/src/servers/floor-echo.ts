// The floor: what any stdio JSON-RPC server must do at least (split lines, JSON.parse,
// JSON.stringify, write), with no MCP logic. Every request gets a tools/call-shaped result;
// a stateless-era request (its `_meta` names a protocol version, MCP 2026-07-28) gets the
// members that era's results carry (`resultType`, `_meta` serverInfo), so the bytes it moves
// are what any server of that era moves. The answers to one input chunk leave in one write,
// as a careful server's would.

const serverInfo = { name: 'bench-floor', version: '1.0.0' };
const STATELESS_RESULT_META = { 'io.modelcontextprotocol/serverInfo': serverInfo };
let buffered = '';

function answer(line: string): string {
  const message = JSON.parse(line);
  if (message.id === undefined) return ''; // a notification: nothing to answer
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

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let output = '';
  let start = 0;
  for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n', start)) {
    if (newline > start) output += answer(buffered.slice(start, newline));
    start = newline + 1;
  }
  buffered = buffered.slice(start);
  if (output !== '') process.stdout.write(output);
});
