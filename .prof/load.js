const http = require('node:http');
const port = Number(process.argv[2]); const seconds = Number(process.argv[3] ?? 5);
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
function post(body, sid) {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    if (sid) headers['mcp-session-id'] = sid;
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers }, (res) => {
      let data = ''; res.on('data', (c) => (data += c)); res.on('end', () => resolve({ res, data }));
    });
    req.on('error', reject); req.end(JSON.stringify(body));
  });
}
(async () => {
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'l', version: '1' } } });
  const sid = init.res.headers['mcp-session-id'];
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  const tools = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, sid);
  const name = JSON.parse(tools.data).result.tools[0].name;
  let n = 0; const end = Date.now() + seconds * 1000;
  async function worker() { while (Date.now() < end) { await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { text: 'hi' } } }, sid); n++; } }
  await Promise.all(Array.from({ length: 16 }, worker));
  console.log(name, (n / seconds).toFixed(0), 'req/s');
  process.exit(0);
})();
