import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planInstall, writePlan } from '../src/install/config-writer';

const entry = { type: 'stdio', command: 'node', args: ['/srv/weather/dist/main.js'] };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-install-write-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function plan(file: string) {
  return planInstall({
    file,
    syntax: 'json',
    serversKey: ['mcpServers'],
    name: 'weather',
    entry,
    force: false,
    where: 'Claude Code',
  });
}

// A client rewrites its own file while it runs (Claude Code keeps state in ~/.claude.json), so
// the file can change between gantry reading it and renaming the new text over it. Writing then
// would put back the text gantry read and lose what the client wrote.
describe('writePlan when another program writes the file after it was read', () => {
  it('refuses, keeping what the other program wrote, with no backup or temporary file left', async () => {
    const file = join(dir, '.claude.json');
    writeFileSync(file, '{\n  "numStartups": 1,\n  "mcpServers": {}\n}\n');
    const planned = await plan(file);
    const theirs = '{\n  "numStartups": 2,\n  "mcpServers": {}\n}\n';
    writeFileSync(file, theirs);

    await expect(writePlan(planned)).rejects.toThrow(
      `cannot write ${file}: it changed after gantry install read it (another program, perhaps the client, wrote it); nothing was written, run gantry install again`,
    );
    expect(readFileSync(file, 'utf8')).toBe(theirs);
    expect(readdirSync(dir)).toEqual(['.claude.json']);
  });

  it('refuses when the file was created after gantry found none', async () => {
    const file = join(dir, 'mcp.json');
    const planned = await plan(file);
    writeFileSync(file, '{ "mcpServers": { "other": { "command": "x" } } }\n');

    await expect(writePlan(planned)).rejects.toThrow(/it changed after gantry install read it/);
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { "other": { "command": "x" } } }\n');
    expect(readdirSync(dir)).toEqual(['mcp.json']);
  });

  it('writes, with a backup, when the file is as it was read', async () => {
    const file = join(dir, '.claude.json');
    writeFileSync(file, '{\n  "numStartups": 1\n}\n');
    const { backup } = await writePlan(await plan(file), new Date('2026-07-26T10:15:00.123Z'));

    expect(backup).toBe(`${file}.20260726T101500Z.bak`);
    expect(readFileSync(backup!, 'utf8')).toBe('{\n  "numStartups": 1\n}\n');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      numStartups: 1,
      mcpServers: { weather: entry },
    });
    expect(readdirSync(dir).sort()).toEqual(['.claude.json', '.claude.json.20260726T101500Z.bak']);
  });
});
