// app.enableShutdownHooks(): a SIGTERM closes the app gracefully before the process ends, so a
// stateless client's listen stream gets its final result instead of a bare disconnect.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(__dirname, '..', '..', '..');

test('SIGTERM ends open listen streams with their final result, then the process exits by that signal', async () => {
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'scripts', 'swc-register.js'), join(__dirname, 'fixtures', 'dual-era-stdio-main.ts')],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: Record<string, unknown>[] = [];
  let wake: (() => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line));
    wake?.();
  });
  const until = async (test: (m: Record<string, unknown>) => boolean) => {
    while (!lines.some(test)) await new Promise<void>((r) => (wake = r));
    return lines.find(test) as Record<string, unknown>;
  };
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 'L',
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    })}\n`,
  );
  await until((m) => m.method === 'notifications/subscriptions/acknowledged');
  child.kill('SIGTERM');
  const final = await until((m) => m.id === 'L');
  expect(final).toEqual({
    jsonrpc: '2.0',
    id: 'L',
    result: {
      resultType: 'complete',
      _meta: {
        'io.modelcontextprotocol/subscriptionId': 'L',
        'io.modelcontextprotocol/serverInfo': { name: 'dual-era', version: '1.0.0' },
      },
    },
  });
  expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
});
