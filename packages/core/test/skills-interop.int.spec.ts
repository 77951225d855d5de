// The official SDK 2.4 host side of the Skills extension (SEP-2640), `SkillsClient` from
// @modelcontextprotocol/client/ext/skills, against a Gantry server spawned as a child process
// on stdio: it lists, gets and reads skills, verifying every file's size and digest and the
// SKILL.md frontmatter against the entry, in both protocol eras.
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { GIT_SKILL_MD, LOGO, sha256, skillsDir, writeTree } from './support/skills-dir';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'skills-stdio-main.ts');

let folder: ReturnType<typeof skillsDir>;
beforeAll(() => {
  folder = skillsDir();
});
afterAll(() => folder.remove());

async function connect(era: 'modern' | 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'skills-interop', version: '2.4.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-r', REGISTER, SERVER, folder.dir],
    cwd: ROOT,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

describe.each([
  ['2026-07-28', 'modern'],
  ['2025-11-25 (initialize)', 'legacy'],
] as const)('SkillsClient against Gantry over stdio, %s', (_label, era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(era);
  });
  afterAll(() => client.close());

  it('sees the extension, lists every page and gets a skill', async () => {
    const skills = new SkillsClient(client);
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((s) => s.uri)).toEqual([
      'skill://git-workflow/SKILL.md',
      'skill://pdf-tools/SKILL.md',
      'skill://release-notes/SKILL.md',
    ]);
    if (era === 'modern') expect(listing).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const got = await skills.get('skill://git-workflow/SKILL.md');
    expect(got.skill).toEqual(listing.skills[0]);
    expect(got.skill.frontmatter.metadata).toEqual({ author: 'ada', version: '1.2' });
  });

  it('reads SKILL.md and a binary file, verified against the entry (and by node:crypto)', async () => {
    const skills = new SkillsClient(client);
    const { skill } = await skills.get('skill://git-workflow/SKILL.md');
    const manifest = await skills.read(skill);
    expect(manifest.verified).toBe(true);
    expect(manifest.text).toBe(GIT_SKILL_MD);
    expect(manifest.frontmatter).toEqual(skill.frontmatter);
    if (skill.resources === 'dynamic') throw new Error('a folder skill lists its files');
    expect(sha256(Buffer.from(manifest.bytes))).toBe(skill.resources[0].digest);
    const logo = await skills.read(skill, 'assets/logo.png');
    expect(logo.verified).toBe(true);
    expect(Buffer.from(logo.bytes)).toEqual(LOGO);
    expect(sha256(Buffer.from(logo.bytes))).toBe(sha256(LOGO));
  });

  it('reads a code-defined skill and walks a directory', async () => {
    const skills = new SkillsClient(client);
    const { skill } = await skills.get('skill://release-notes/SKILL.md');
    const template = await skills.read(skill, 'templates/notes.md');
    expect(template).toMatchObject({ verified: true, text: '## {{version}}\n' });
    const { resources: children } = await skills.readDirectory('skill://git-workflow');
    expect(children.map((c) => [c.name, c.mimeType])).toEqual([
      ['SKILL.md', 'text/markdown'],
      ['assets', 'inode/directory'],
      ['references', 'inode/directory'],
    ]);
  });

  it('an unknown skill is refused by the server', async () => {
    const skills = new SkillsClient(client);
    await expect(skills.get('skill://nope/SKILL.md')).rejects.toThrow(
      /no skill is served at skill:\/\/nope\/SKILL\.md/,
    );
  });

  it('a skill added to the folder: reload sends resources/list_changed and the client lists it', async () => {
    const changed = new Promise<void>((done) => {
      client.setNotificationHandler('notifications/resources/list_changed', () => done());
    });
    // 2026-07-28: notifications arrive on a subscriptions/listen stream; before, unsolicited.
    const subscription = era === 'modern' ? await client.listen({ resourcesListChanged: true }) : undefined;
    writeTree(folder.dir, {
      'added-skill/SKILL.md': '---\nname: added-skill\ndescription: Added later\n---\n',
    });
    try {
      const result = await client.callTool({ name: 'reload_skills', arguments: {} });
      expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual({
        added: ['skill://added-skill/SKILL.md'],
        removed: [],
        changed: [],
      });
      await changed;
      const listing = await new SkillsClient(client).list();
      expect(listing.skills.map((s) => s.uri)).toContain('skill://added-skill/SKILL.md');
    } finally {
      await subscription?.close();
      rmSync(join(folder.dir, 'added-skill'), { recursive: true, force: true });
    }
  });
});
