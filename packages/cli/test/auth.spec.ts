import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuthRecord, fileTokenStore } from '@gantry/client';
import { ExitCode } from '../src/exit-codes';
import { runInProcess } from './support/run-in-process';

const RECORD: AuthRecord = {
  tokens: { accessToken: 'at', tokenType: 'Bearer', refreshToken: 'rt' },
  client: { issuer: 'https://auth.example.com', clientId: 'gantry-cli' },
};
const EXAMPLE = 'https://example.com/mcp';
const LOCAL = 'http://127.0.0.1:3000/mcp';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gantry-auth-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const gantry = (...args: string[]) => runInProcess([...args, '--auth-dir', dir]);
const stored = () => fileTokenStore({ dir }).keys();

async function seed(...keys: string[]): Promise<void> {
  const store = fileTokenStore({ dir });
  for (const key of keys) await store.save(key, RECORD);
}

describe('gantry auth list', () => {
  it('prints the stored endpoints, one per line, sorted', async () => {
    await seed(LOCAL, EXAMPLE);
    expect(await gantry('auth', 'list')).toEqual({ code: 0, stdout: `${LOCAL}\n${EXAMPLE}\n`, stderr: '' });
  });

  it('says on stderr that there are none, leaving stdout empty for scripts', async () => {
    expect(await gantry('auth', 'list')).toEqual({
      code: 0,
      stdout: '',
      stderr: `No stored sign-ins (in ${dir}).\n`,
    });
  });

  it('warns about an unreadable record and lists the others', async () => {
    await seed(EXAMPLE);
    const broken = createHash('sha256').update(LOCAL).digest('hex');
    await writeFile(join(dir, `${broken}.json`), '{ not json');
    expect(await gantry('auth', 'list')).toEqual({
      code: 0,
      stdout: `${EXAMPLE}\n`,
      stderr: `gantry: warning: Token store file ${join(dir, `${broken}.json`)} is not valid JSON; delete it to sign in again\n`,
    });
  });
});

describe('gantry auth logout', () => {
  it('deletes the record of the canonical URL, however the URL is spelt', async () => {
    await seed(EXAMPLE, LOCAL);
    expect(await gantry('auth', 'logout', 'HTTPS://Example.com:443/mcp/?session=1')).toEqual({
      code: 0,
      stdout: `Signed out of ${EXAMPLE}.\n`,
      stderr: '',
    });
    expect(await stored()).toEqual([LOCAL]);
  });

  it('says when there was no record, and exits 0', async () => {
    await seed(LOCAL);
    expect(await gantry('auth', 'logout', EXAMPLE)).toEqual({
      code: 0,
      stdout: `No stored sign-in for ${EXAMPLE} (in ${dir}).\n`,
      stderr: '',
    });
    expect(await stored()).toEqual([LOCAL]);
  });

  it('deletes an unreadable record too', async () => {
    const file = `${createHash('sha256').update(EXAMPLE).digest('hex')}.json`;
    await writeFile(join(dir, file), 'garbage');
    expect(await gantry('auth', 'logout', EXAMPLE)).toEqual({
      code: 0,
      stdout: `Signed out of ${EXAMPLE} (its unreadable record is deleted).\n`,
      stderr: `gantry: warning: Token store file ${join(dir, file)} is not valid JSON; delete it to sign in again\n`,
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('--all deletes every record and names them', async () => {
    await seed(EXAMPLE, LOCAL);
    expect(await gantry('auth', 'logout', '--all')).toEqual({
      code: 0,
      stdout: `Signed out of 2 MCP servers:\n  ${LOCAL}\n  ${EXAMPLE}\n`,
      stderr: '',
    });
    expect(await stored()).toEqual([]);
    expect(await gantry('auth', 'logout', '--all')).toEqual({
      code: 0,
      stdout: `No stored sign-ins (in ${dir}).\n`,
      stderr: '',
    });
  });

  it.each([
    [[], 'gantry: give the URL of the MCP endpoint to sign out of, or --all\n'],
    [[EXAMPLE, '--all'], 'gantry: give either a URL or --all, not both\n'],
    [
      ['example.com/mcp'],
      'gantry: "example.com/mcp" is not the URL of an MCP endpoint; give it as http(s)://host/path, e.g. https://example.com/mcp\n',
    ],
  ])('refuses %j with exit 2', async (args, stderr) => {
    await seed(EXAMPLE);
    expect(await gantry('auth', 'logout', ...args)).toEqual({ code: ExitCode.Usage, stdout: '', stderr });
    expect(await stored()).toEqual([EXAMPLE]);
  });
});
