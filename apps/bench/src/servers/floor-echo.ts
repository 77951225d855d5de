// The floor: what any stdio JSON-RPC server must do at least (split lines, JSON.parse,
// JSON.stringify, write), with no MCP logic. Every request gets a tools/call-shaped result.
// The answers to one input chunk leave in one write, as a careful server's would.

const serverInfo = { name: 'bench-floor', version: '1.0.0' };
let buffered = '';

function answer(line: string): string {
  const message = JSON.parse(line);
  if (message.id === undefined) return ''; // a notification: nothing to answer
  const result =
    message.method === 'initialize'
      ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo }
      : { content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] };
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
