// Gantry's client against the official v2 SDK server (@modelcontextprotocol/server 2.4.0), run
// as a real child process from an ESM fixture: over stdio (serveStdio) and over Streamable HTTP
// (createMcpHandler behind @modelcontextprotocol/node), in both protocol eras.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, clearEraCache, StdioClientTransport, StreamableHttpClientTransport } from '@gantry/client';
import { McpError } from '@gantry/protocol';

const V2_SERVER = join(__dirname, 'fixtures', 'v2-server.mjs');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
beforeEach(() => clearEraCache());

function newClient(): Client & { asked: string[] } {
  const client = new Client(
    { name: 'gantry-v2-interop', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', (params) => {
    asked.push(params.message as string);
    return { action: 'accept', content: { ok: true } };
  });
  cleanups.push(() => client.close());
  return Object.assign(client, { asked });
}

function stdioServer(legacy: 'serve' | 'reject'): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [V2_SERVER, 'stdio', legacy],
    stderr: 'pipe',
  });
}

/** Starts the HTTP fixture and resolves with its URL once it listens. */
async function httpServer(
  legacy: 'stateless' | 'reject',
): Promise<{ url: string; recorded: () => Promise<any[]> }> {
  const child: ChildProcess = spawn(process.execPath, [V2_SERVER, 'http', legacy], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line.replace(/^listening /, '')));
    child.once('exit', (code) => reject(new Error(`the v2 fixture exited with ${code} before listening`)));
  });
  const recorded = async () => (await fetch(new URL('/recorded', url))).json() as Promise<any[]>;
  return { url, recorded };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/** Lists the tools and calls two of them: a plain one and one that needs an input round. */
async function exercise(client: Client & { asked: string[] }) {
  const tools = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(['add', 'greet', 'confirm']);
  await expect(client.callTool('add', { a: 20, b: 22 })).resolves.toEqual({
    content: [{ type: 'text', text: '42' }],
  });
  expect(text(await client.callTool('confirm', { action: 'deploy' }))).toBe('did deploy');
  expect(client.asked).toEqual(['Really deploy?']);
}

describe('the v2 SDK server over stdio', () => {
  it("era 'auto' speaks 2026-07-28 with it: discover, list, call, an input_required round", async () => {
    const client = newClient();
    await client.connect(stdioServer('serve'));
    expect(client.era).toBe('stateless');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toEqual({ name: 'v2-fixture', version: '2.4.0' });
    expect(client.instructions).toBe('A v2 SDK fixture for @gantry/client tests.');
    await exercise(client);
  });

  it("era 'session' speaks the session era with it; the elicitation comes as a server request", async () => {
    const client = newClient();
    await client.connect(stdioServer('serve'), { era: 'session' });
    expect(client.era).toBe('session');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'v2-fixture', version: '2.4.0' });
    await exercise(client);
  });

  it("a stateless-only v2 server refuses era 'session', and 'auto' finds the stateless era", async () => {
    const refused = newClient();
    const error = await refused
      .connect(stdioServer('reject'), { era: 'session' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);

    const client = newClient();
    await client.connect(stdioServer('reject'));
    expect(client.era).toBe('stateless');
    await exercise(client);
  });
});

describe('the v2 SDK server over Streamable HTTP', () => {
  it("era 'auto' speaks 2026-07-28: the v2 server checks the headers, Mcp-Param-Region included", async () => {
    const server = await httpServer('stateless');
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    expect(client.era).toBe('stateless');
    await exercise(client);
    expect(text(await client.callTool('greet', { region: 'eu-west', name: 'Ada' }))).toBe(
      'hello Ada in eu-west',
    );

    const posts = await server.recorded();
    const greet = posts.at(-1);
    expect(greet).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'greet',
      'mcp-param-region': 'eu-west',
    });
    expect(posts.every((headers) => headers['mcp-session-id'] === undefined)).toBe(true);
  });

  it("era 'session' against the stateless legacy fallback: initialize, list, call", async () => {
    const server = await httpServer('stateless');
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: server.url }), { era: 'session' });
    expect(client.era).toBe('session');
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'greet', 'confirm']);
    await expect(client.callTool('add', { a: 1, b: 1 })).resolves.toEqual({
      content: [{ type: 'text', text: '2' }],
    });
    const posts = await server.recorded();
    expect(posts[0]['mcp-method']).toBeUndefined();
  });

  it("a stateless-only v2 endpoint refuses era 'session', and 'auto' finds the stateless era", async () => {
    const server = await httpServer('reject');
    const refused = newClient();
    const error = await refused
      .connect(new StreamableHttpClientTransport({ url: server.url }), { era: 'session' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);

    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    expect(client.era).toBe('stateless');
    await exercise(client);
  });
});
