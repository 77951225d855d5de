import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

// scripts/conformance-client.js runs the official suite's client scenarios against the fixture
// client (dist/client.js, built by `tsc -b`); it installs the CLI from the npm registry on first use.
const RUNNER = resolve(__dirname, '../../../scripts/conformance-client.js');
const NON_AUTH = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];

function runRunner(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => child.on('exit', (code) => done({ code, stdout, stderr })));
}

/** The runner's result lines, without the install log. */
const lines = (stdout: string) =>
  stdout.split('\n').filter((line) => /^(PASS|FAIL|WARN|client conformance)/.test(line));

describe('scripts/conformance-client.js', () => {
  it('passes the four non-auth client scenarios, one line each and the total', async () => {
    const run = await runRunner(['--scenario', NON_AUTH.join(',')]);

    expect(lines(run.stdout)).toEqual([
      'PASS initialize (1/1 checks)',
      'PASS tools_call (1/1 checks)',
      'PASS elicitation-sep1034-client-defaults (5/5 checks)',
      'PASS sse-retry (3/3 checks)',
      'client conformance: 4/4',
    ]);
    expect(run.code).toBe(0);
  }, 180_000);

  it('passes an auth scenario with its context (pre-registered client) and one without (DCR)', async () => {
    const run = await runRunner(['--scenario', 'auth/pre-registration,auth/metadata-default']);

    expect(lines(run.stdout)).toEqual([
      'PASS auth/pre-registration (14/14 checks)',
      'PASS auth/metadata-default (14/14 checks)',
      'client conformance: 2/2',
    ]);
    expect(run.code).toBe(0);
  }, 180_000);

  it('refuses a scenario the suite does not have, listing those it has', async () => {
    const run = await runRunner(['--scenario', 'initialize,no-such-scenario']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'unknown client scenario(s) no-such-scenario; the suite has: initialize, tools_call,',
    );
    expect(run.stdout).not.toMatch(/^PASS/m);
  }, 180_000);
});
