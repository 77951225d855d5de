// The http() listener's logging: Fastify's pino, with reqId and (once known) sessionId on the
// request's lines, and Gantry's own diagnostics on the same stream.
import { type GantryApplication, GantryFactory, Injectable, Module, pinoLogger, Tool } from '@gantry/core';
import Fastify from 'fastify';
import { createWhoamiApp } from '../../core/test/fixtures/whoami-app';
import { type HttpListener, http } from '../src';
import { headersFor, rpc } from './stateless-support';

const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'logs', version: '1' } },
};

/** A pino destination that keeps every line, parsed. */
function capture() {
  const lines: Record<string, any>[] = [];
  return { lines, stream: { write: (line: string) => lines.push(JSON.parse(line)) } };
}

async function serve(app: GantryApplication, options: Parameters<typeof http>[0] = {}) {
  const listener: HttpListener = http({ port: 0, onListening: () => {}, ...options });
  await app.listen(listener);
  const url = listener.url as string;
  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
    });
  return { listener, url, post };
}

describe('http() logs through Fastify’s pino when the app chose no logger', () => {
  let app: GantryApplication;
  const { lines, stream } = capture();
  let server: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    app = await createWhoamiApp({ logger: undefined });
    server = await serve(app, { logger: { level: 'info', stream } });
  });
  afterAll(() => app.close());

  it('puts reqId on every request line and sessionId on those after the session is known', async () => {
    const init = await server.post(INITIALIZE);
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const ping = await server.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });

    const requestLines = lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed');
    expect(requestLines).toHaveLength(4);
    for (const line of requestLines) expect(typeof line.reqId).toBe('string');
    const [initIn, initDone, pingIn, pingDone] = requestLines;
    expect(initDone.reqId).toBe(initIn.reqId);
    expect(pingDone.reqId).toBe(pingIn.reqId);
    expect(pingIn.reqId).not.toBe(initIn.reqId);
    // The session is known once the route has run: `incoming request` comes before.
    expect(initIn.sessionId).toBeUndefined();
    expect(pingIn.sessionId).toBeUndefined();
    expect(initDone).toMatchObject({ sessionId: session, res: { statusCode: 200 } });
    expect(pingDone).toMatchObject({ sessionId: session, res: { statusCode: 200 } });
  });

  it("routes Gantry's diagnostics (the app logger) to the same pino, errors under err", () => {
    lines.length = 0;
    app.logger.warn('a diagnostic', new Error('boom'), { detail: 1 });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'a diagnostic',
        err: expect.objectContaining({ type: 'Error', message: 'boom' }),
        details: [{ detail: 1 }],
      }),
    ]);
  });

  it('drops lines under the level', () => {
    lines.length = 0;
    app.logger.debug('not at info');
    expect(lines).toEqual([]);
  });
});

describe('http() and a logger the app chose', () => {
  it('logs Fastify’s request lines to the pino given as pinoLogger(pino)', async () => {
    const { lines, stream } = capture();
    // A real pino instance (Fastify's own, which is one), standing for `pino({ … }, stream)`.
    const pino = Fastify({ logger: { level: 'info', stream } }).log;
    const app = await createWhoamiApp({ logger: pinoLogger(pino) });
    const server = await serve(app);
    const response = await server.post(INITIALIZE);
    await response.text();
    app.logger.error('from gantry');
    await app.close();
    expect(lines.filter((l) => l.msg === 'request completed')).toEqual([
      expect.objectContaining({
        reqId: expect.any(String),
        sessionId: response.headers.get('mcp-session-id'),
      }),
    ]);
    expect(lines.filter((l) => l.msg === 'from gantry')).toHaveLength(1);
  });

  it('leaves a logger that is not pino alone: it gets Gantry’s lines, and no request lines', async () => {
    const seen: string[] = [];
    const logger = {
      debug: (m: string) => seen.push(`debug ${m}`),
      info: (m: string) => seen.push(`info ${m}`),
      warn: (m: string) => seen.push(`warn ${m}`),
      error: (m: string) => seen.push(`error ${m}`),
    };
    const app = await createWhoamiApp({ logger });
    const listener = http({ port: 0 });
    await app.listen(listener);
    await (await fetch(listener.url as string, { method: 'POST', body: '{}' })).text();
    await app.close();
    expect(seen).toEqual([`info MCP server listening on ${listener.url}`]);
  });

  it('refuses a bad level at once', () => {
    expect(() => http({ logger: { level: 'loud' } })).toThrow(
      'http(): logger.level must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
    );
  });
});

@Injectable()
class FailingTools {
  @Tool({ description: 'Always throws' })
  explode(): string {
    throw new Error('kaboom');
  }
}

@Module({ providers: [FailingTools] })
class FailingModule {}

describe('the line a failing tool leaves: bound to its request', () => {
  let app: GantryApplication;
  const { lines, stream } = capture();
  let server: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    app = await GantryFactory.create(FailingModule, { name: 'failing', version: '1' });
    server = await serve(app, { logger: { level: 'info', stream } });
  });
  afterAll(() => app.close());

  const failures = () => lines.filter((line) => line.msg === "Tool 'explode' (FailingTools.explode) failed:");

  it('carries the session and the JSON-RPC request id, with the error under err', async () => {
    const init = await server.post(INITIALIZE);
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'explode', arguments: {} } };
    const answer = (await (await server.post(call, headers)).json()) as any;
    expect(answer.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'kaboom' }] });
    expect(failures()).toEqual([
      expect.objectContaining({
        level: 50,
        sessionId: session,
        requestId: 7,
        err: expect.objectContaining({ message: 'kaboom' }),
      }),
    ]);
  });

  it('carries the request id alone in the stateless era, which has no session', async () => {
    lines.length = 0;
    const body = rpc('call-8', 'tools/call', { name: 'explode', arguments: {} });
    const answer = (await (await server.post(body, headersFor(body))).json()) as any;
    expect(answer.result).toMatchObject({ isError: true });
    const [line] = failures();
    expect(line).toMatchObject({ requestId: 'call-8', err: expect.objectContaining({ message: 'kaboom' }) });
    expect(line.sessionId).toBeUndefined();
  });
});
