// Spawns the built example server, initializes, creates and reads a note, and checks the answers.

const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const dir = mkdtempSync(join(tmpdir(), 'gantry-smoke-'));
const child = spawn(process.execPath, [join(__dirname, '..', 'apps', 'notes', 'dist', 'main.js')], {
  env: { ...process.env, NOTES_DIR: dir },
  stdio: ['pipe', 'pipe', 'inherit'],
});
const pending = new Map();
let buffer = '';
child.stdout.on('data', (chunk) => {
  buffer += chunk;
  for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    const message = JSON.parse(line); // any non-JSON line on stdout fails the smoke run
    pending.get(message.id)?.(message);
  }
});
let nextId = 1;
function request(method, params) {
  const id = nextId++;
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 10 s`)), 10_000);
    pending.set(id, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
  });
}
function check(condition, what, value) {
  if (!condition) throw new Error(`smoke check failed: ${what}: ${JSON.stringify(value)}`);
}

(async () => {
  const init = await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'ci-smoke', version: '1.0.0' },
  });
  check(init.result?.serverInfo?.name === 'gantry-notes', 'serverInfo', init);
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const list = await request('tools/list', {});
  const names = list.result.tools.map((t) => t.name).sort();
  check(
    names.join() === 'create_note,delete_note,export_notes,get_note,import_notes,move_note,search_notes',
    'tool names',
    names,
  );
  const created = await request('tools/call', {
    name: 'create_note',
    arguments: { title: 'Smoke', body: 'from CI' },
  });
  const text = created.result?.content?.[0]?.text ?? '';
  const id = /^Created note ([0-9a-f]{8}): Smoke$/.exec(text)?.[1];
  check(id, 'create_note answer', created);
  const got = await request('tools/call', { name: 'get_note', arguments: { id } });
  check(JSON.parse(got.result.content[0].text).body === 'from CI', 'get_note answer', got);
  child.stdin.end();
  const code = await new Promise((resolve) => child.on('exit', resolve));
  check(code === 0, 'exit code after stdin closed', code);
  console.log('smoke: initialize, tools/list, create_note, get_note OK; exited 0 on stdin EOF');
})()
  .catch((error) => {
    console.error(error.message);
    child.kill();
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
