// `gantry … --oauth` and `--client-id/--client-secret` against a real authorization server and
// a Gantry server protected by it (the client package's fixtures), the CLI as a child process.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuthServer, startAuthServer } from '../../client/test/fixtures/oauth-server';
import { type ProtectedServer, startProtectedServer } from '../../client/test/fixtures/protected-server';
import { ExitCode } from '../src/exit-codes';
import { runCli } from './support/run-cli';

let as: AuthServer;
let mcp: ProtectedServer;
let authDir: string;

beforeEach(async () => {
  authDir = mkdtempSync(join(tmpdir(), 'gantry-oauth-'));
});

afterEach(async () => {
  await mcp?.close();
  await as?.close();
  rmSync(authDir, { recursive: true, force: true });
});

async function serve(options: Parameters<typeof startAuthServer>[0] = {}): Promise<void> {
  as = await startAuthServer(options);
  mcp = await startProtectedServer({ authServer: as });
}

describe('gantry --oauth', () => {
  it('signs in on the 401, calls the tool, and reuses the stored tokens next time', async () => {
    await serve();
    const args = [
      'call',
      mcp.url,
      'whoami',
      '--oauth',
      '--auth-interaction',
      'headless',
      '--auth-dir',
      authDir,
    ];

    const first = await runCli(args);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(ExitCode.Ok);
    expect(first.stdout).toContain('user-1');
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.clients[0].metadata.client_name).toBe('gantry');

    // The tokens and the registration are on disk, owner-only; a second run signs in no more.
    const files = readdirSync(authDir);
    expect(files).toHaveLength(1);
    expect(statSync(join(authDir, files[0])).mode & 0o777).toBe(0o600);
    const second = await runCli(args);
    expect(second.code).toBe(ExitCode.Ok);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.clients).toHaveLength(1);

    // gantry auth logout forgets them: the next call signs in again.
    const logout = await runCli(['auth', 'logout', mcp.url, '--auth-dir', authDir]);
    expect(logout.code).toBe(ExitCode.Ok);
    await runCli(args);
    expect(as.authorizationRequests).toHaveLength(2);
  });

  it('a refused sign-in exits 3 naming the OAuth error', async () => {
    await serve({ approve: () => false });
    const run = await runCli([
      'list',
      mcp.url,
      '--oauth',
      '--auth-interaction',
      'headless',
      '--auth-dir',
      authDir,
    ]);
    expect(run.code).toBe(ExitCode.Connection);
    expect(run.stderr).toMatch(/^gantry: cannot connect to .*: Authorization failed: .*access_denied/);
  });

  it('without credentials, the 401 hint names --oauth', async () => {
    await serve();
    const run = await runCli(['list', mcp.url]);
    expect(run.code).toBe(ExitCode.Connection);
    expect(run.stderr).toContain(
      '(the server wants credentials: pass --oauth to sign in, or --token <token>',
    );
  });
});

describe('gantry --client-id --client-secret (client credentials)', () => {
  it('gets a token for the service and calls the tool', async () => {
    await serve({ preRegistered: [{ clientId: 'svc', clientSecret: 's3cret' }] });
    const run = await runCli(['call', mcp.url, 'whoami', '--client-id', 'svc', '--client-secret', 's3cret']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout).toContain('svc');
    expect(as.tokenRequests[0]).toMatchObject({ grantType: 'client_credentials', clientId: 'svc' });
  });

  it('usage errors name the missing or misplaced option', async () => {
    await serve();
    const noSecret = await runCli(['list', mcp.url, '--client-id', 'svc']);
    expect(noSecret.code).toBe(ExitCode.Usage);
    expect(noSecret.stderr).toContain(
      '--client-id without --oauth is the client credentials grant: pass --client-secret',
    );
    const both = await runCli(['list', mcp.url, '--oauth', '--token', 't']);
    expect(both.code).toBe(ExitCode.Usage);
    expect(both.stderr).toContain('--oauth and --token exclude each other');
    const stdio = await runCli(['list', 'node server.js', '--oauth']);
    expect(stdio.code).toBe(ExitCode.Usage);
    expect(stdio.stderr).toContain('--oauth applies to an http(s):// or ws(s):// target only');
  });
});
