import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

// The fixture client of the conformance client suite, run as the suite runs it: scenario in
// MCP_CONFORMANCE_SCENARIO, server URL as the last argument. The suite's own servers are
// exercised by scripts/conformance-client.js; here the fixture meets the Gantry fixture server.
const CLIENT = resolve(__dirname, '../dist/client.js');
const SERVER = resolve(__dirname, '../dist/main.js');

function runClient(
  env: { [key: string]: string | undefined },
  args: string[],
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLIENT, ...args], {
    env: { ...process.env, MCP_CONFORMANCE_SCENARIO: undefined, MCP_CONFORMANCE_CONTEXT: undefined, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => child.on('exit', (code) => done({ code, stderr })));
}

describe('apps/conformance client fixture (dist/client.js)', () => {
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    server = spawn(process.execPath, [SERVER, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<string>((done, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`no URL printed: ${stderr}`)), 10_000);
      server.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
        if (found) {
          clearTimeout(timer);
          done(found);
        }
      });
    });
  });

  afterAll(async () => {
    server.kill('SIGTERM');
    await new Promise((done) => server.on('exit', done));
  });

  it('initialize: connects to the URL given last and exits 0', async () => {
    const run = await runClient({ MCP_CONFORMANCE_SCENARIO: 'initialize' }, ['--ignored', url]);

    expect(run).toEqual({ code: 0, stderr: '' });
  });

  it('tools_call: exits 1 naming the tool when the server lacks add_numbers', async () => {
    const run = await runClient({ MCP_CONFORMANCE_SCENARIO: 'tools_call' }, [url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('conformance client (tools_call): the server lists no tool "add_numbers"');
  });

  it('auth/*: a scenario that needs a context names the field it lacks', async () => {
    const run = await runClient({ MCP_CONFORMANCE_SCENARIO: 'auth/pre-registration' }, [url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('auth/pre-registration: MCP_CONFORMANCE_CONTEXT has no string "client_id"');
  });

  it('auth/*: a context that is not a JSON object is named', async () => {
    const run = await runClient(
      { MCP_CONFORMANCE_SCENARIO: 'auth/pre-registration', MCP_CONFORMANCE_CONTEXT: '[1]' },
      [url],
    );

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('MCP_CONFORMANCE_CONTEXT must be a JSON object');
  });

  it('an unknown scenario exits 1 and lists the known ones', async () => {
    const run = await runClient({ MCP_CONFORMANCE_SCENARIO: 'no-such-scenario' }, [url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'unknown scenario "no-such-scenario": this client runs initialize, tools_call, elicitation-sep1034-client-defaults, sse-retry and auth/*',
    );
  });

  it('without MCP_CONFORMANCE_SCENARIO or a URL it exits 1 saying what is missing', async () => {
    const noScenario = await runClient({}, [url]);
    const noUrl = await runClient({ MCP_CONFORMANCE_SCENARIO: 'initialize' }, []);

    expect(noScenario.code).toBe(1);
    expect(noScenario.stderr).toContain('MCP_CONFORMANCE_SCENARIO is not set');
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain("the last argument must be the server's http(s) URL");
  });
});
