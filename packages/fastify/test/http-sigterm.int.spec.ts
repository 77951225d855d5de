// SIGTERM to a real server process (fixtures/drain-server.cjs, on the built packages: needs
// `npx tsc -b`) with app.enableShutdownHooks(): readiness turns 503, a new session is refused,
// the open session is served, the in-flight call finishes and its response arrives, and the
// process then ends by SIGTERM, as it would have without a handler.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

const SERVER = resolve(__dirname, 'fixtures/drain-server.cjs');
const ACCEPT = 'application/json, text/event-stream';

/** The child's stderr, with a way to await a line. */
function stderrOf(child: ChildProcess) {
  let text = '';
  const waiters: { test: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    text += chunk;
    for (const waiter of [...waiters]) {
      const match = text.match(waiter.test);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  return {
    get text() {
      return text;
    },
    line(test: RegExp): Promise<RegExpMatchArray> {
      const match = text.match(test);
      if (match) return Promise.resolve(match);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        child.once('exit', () => reject(new Error(`the server exited before ${test}; stderr:\n${text}`)));
      });
    },
  };
}

function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
  if (sessionId) {
    headers['mcp-session-id'] = sessionId;
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('SIGTERM to a server with enableShutdownHooks()', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  it('drains: not ready, new sessions refused, the in-flight call answered, then exits by the signal', async () => {
    const server = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = server;
    const exited = once(server, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const stderr = stderrOf(server);
    const [, mcp] = await stderr.line(/listening on (\S+)\n/);
    const base = mcp.replace(/\/mcp$/, '');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const initialized = await post(mcp, INITIALIZE);
    expect(initialized.status).toBe(200);
    await initialized.json();
    const session = initialized.headers.get('mcp-session-id') as string;
    await (await post(mcp, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const held = post(mcp, call(2, 'hold'), session);
    await stderr.line(/hold started\n/);

    server.kill('SIGTERM');
    await stderr.line(/Draining: waiting up to 30000 ms for 1 in-flight request/);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('2');
    expect(await ready.json()).toMatchObject({ status: 'unavailable', checks: { draining: { ok: false } } });
    const refused = await post(mcp, { ...INITIALIZE, id: 3 });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Service Unavailable: the server is shutting down; retry, another instance will answer',
    );

    // The open session is served: its release lets the held call finish.
    const released = await post(mcp, call(4, 'release'), session);
    expect(await released.json()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: { content: [{ type: 'text', text: 'released' }] },
    });
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'held and released' }] },
    });

    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
    expect(stderr.text).not.toMatch(/Error while shutting down/);
  });
});
