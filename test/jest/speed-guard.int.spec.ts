// The guard of the Jest projects (speed-guard.ts), run on fixture files by a Jest of its own,
// configured as jest.config.ts configures the unit and integration projects.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(__dirname, 'fixtures');

interface FileResult {
  name: string;
  status: string;
  message: string;
}

let results: Map<string, FileResult>;
const out = mkdtempSync(join(tmpdir(), 'gantry-speed-guard-'));

beforeAll(async () => {
  const project = (kind: string) => ({
    displayName: kind,
    rootDir: ROOT,
    roots: [join(FIXTURES, kind)],
    testMatch: ['**/*.fixture.ts'],
    transform: { '^.+\\.ts$': ['@swc/jest'] },
    setupFilesAfterEnv: [join(__dirname, `${kind}-setup.ts`)],
  });
  const config = { rootDir: ROOT, projects: [project('unit'), project('integration')] };
  const output = join(out, 'results.json');
  await new Promise<void>((done) => {
    execFile(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--config',
        JSON.stringify(config),
        '--ci',
        '--json',
        '--outputFile',
        output,
      ],
      { cwd: ROOT, timeout: 60_000 },
      () => done(),
    );
  });
  const report = JSON.parse(readFileSync(output, 'utf8')) as {
    testResults: { name: string; status: string; message: string }[];
  };
  results = new Map(
    report.testResults.map((r) => [
      r.name.slice(FIXTURES.length + 1),
      { name: r.name, status: r.status, message: r.message },
    ]),
  );
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

const refusal = (file: string, what: string) =>
  `test/jest/fixtures/unit/${file}.fixture.ts is in the unit project (in memory: no processes, ports or connections), but it ${what}.`;

describe('in the unit project', () => {
  it('passes a test that stays in memory', () => {
    expect(results.get('unit/in-memory.fixture.ts')?.status).toBe('passed');
  });

  it.each([
    ['spawns', `starts a child process (${process.execPath} -e )`],
    ['spawns-sync', `starts a child process (execFileSync ${process.execPath})`],
    ['listens', 'listens on a port'],
    ['connects', 'opens a network connection'],
    ['hides-it', `starts a child process (${process.execPath} -e )`],
  ])('fails %s, saying how to rename the file', (file, what) => {
    const result = results.get(`unit/${file}.fixture.ts`);
    expect(result?.status).toBe('failed');
    expect(result?.message).toContain(refusal(file, what));
    expect(result?.message).toContain(`Rename it ${file}.fixture.ts`);
  });
});

describe('in the integration project', () => {
  it('lets a test start processes', () => {
    expect(results.get('integration/spawns.fixture.ts')?.status).toBe('passed');
  });

  it('refuses an install from the registry', () => {
    const result = results.get('integration/npm-install.fixture.ts');
    expect(result?.status).toBe('failed');
    expect(result?.message).toContain(
      'test/jest/fixtures/integration/npm-install.fixture.ts is in the integration project, but it installs from a registry (npm install left-pad).',
    );
  });
});
