// The official SDK 2.4 `SkillsClient` (SEP-2640) against apps/notes over Streamable HTTP, in
// both protocol eras: it finds the tidy-notes skill, and reads its files with their sizes,
// digests and frontmatter verified against the listing.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const MAIN = resolve(__dirname, '../dist/main.js');
const SKILL_MD = readFileSync(resolve(__dirname, '../skills/tidy-notes/SKILL.md'));

describe('SkillsClient against apps/notes over HTTP', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-skills-'));
    child = spawn(process.execPath, [MAIN, '--http', '--port', '0'], {
      env: { ...process.env, NOTES_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((done, fail) => {
      let stderr = '';
      child.once('exit', (code) => fail(new Error(`notes exited with ${code}: ${stderr}`)));
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
        if (found) done(found);
      });
    });
  });

  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((done) => child.on('exit', done));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['2026-07-28', { pin: '2026-07-28' }],
    ['2025-11-25 (initialize)', 'legacy'],
  ] as const)('%s: lists, gets and reads the skill, verified', async (_era, mode) => {
    const client = new Client({ name: 'skills-http', version: '2.4.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills.map((skill) => skill.uri)).toEqual(['skill://tidy-notes/SKILL.md']);
      const { skill } = await skills.get('skill://tidy-notes/SKILL.md');
      expect(skill.frontmatter.name).toBe('tidy-notes');
      const manifest = await skills.read(skill);
      expect(manifest.verified).toBe(true);
      expect(Buffer.from(manifest.bytes)).toEqual(SKILL_MD);
      if (skill.resources === 'dynamic') throw new Error('a folder skill lists its files');
      expect(skill.resources[0].digest).toBe(`sha256:${createHash('sha256').update(SKILL_MD).digest('hex')}`);
      // Every supporting file reads back verified too.
      for (const file of skill.resources.slice(1)) {
        const read = await skills.read(skill, file.uri.slice('skill://tidy-notes/'.length));
        expect(read.verified).toBe(true);
      }
    } finally {
      await client.close();
    }
  });
});
