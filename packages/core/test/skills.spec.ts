import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type GantryApplication,
  GantryFactory,
  Module,
  SKILLS_EXTENSION_ID,
  Skill,
  SkillsModule,
} from '@gantry/core';
import { GIT_SKILL_MD, LOGO, PDF_SKILL_MD, sha256, skillsDir } from './support/skills-dir';

@Skill({
  name: 'release-notes',
  description: 'Writes release notes from merged pull requests',
  frontmatter: { license: 'Apache-2.0' },
  files: { 'templates/notes.md': '## {{version}}\n' },
})
class ReleaseNotesSkill {
  body() {
    return '# Release notes\n\nStart from templates/notes.md.\n';
  }
}

const GIT = 'skill://git-workflow/SKILL.md';
const PDF = 'skill://pdf-tools/SKILL.md';
const NOTES = 'skill://release-notes/SKILL.md';

let folder: ReturnType<typeof skillsDir>;
let app: GantryApplication;

beforeAll(async () => {
  folder = skillsDir();
  @Module({
    imports: [
      SkillsModule.forRoot({
        dir: folder.dir,
        skills: [ReleaseNotesSkill],
        pageSize: 2,
        directoryRead: true,
      }),
    ],
  })
  class AppModule {}
  app = await GantryFactory.create(AppModule, { name: 'skills', version: '1.0.0', logger: false });
});
afterAll(async () => {
  await app.close();
  folder.remove();
});

const request = (id: number, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });

describe('skills in the session era', () => {
  it('advertises the extension with directoryRead, and resources', async () => {
    const [answer] = await app.inject(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    expect(answer.result.capabilities.extensions).toEqual({ [SKILLS_EXTENSION_ID]: { directoryRead: true } });
    expect(answer.result.capabilities.resources).toBeDefined();
  });

  it('lists every skill in URI order, two per page, never splitting an entry', async () => {
    const [first] = await app.inject(request(1, 'skills/list'), { initialize: true });
    expect(first.result.skills.map((s: { uri: string }) => s.uri)).toEqual([GIT, PDF]);
    expect(typeof first.result.nextCursor).toBe('string');
    expect(first.result.ttlMs).toBeUndefined();
    const [second] = await app.inject(request(2, 'skills/list', { cursor: first.result.nextCursor }), {
      initialize: true,
    });
    expect(second.result.skills.map((s: { uri: string }) => s.uri)).toEqual([NOTES]);
    expect(second.result.nextCursor).toBeUndefined();
  });

  it('each entry has the frontmatter verbatim and every file with its sha256 digest and size', async () => {
    const [answer] = await app.inject(request(1, 'skills/get', { uri: GIT }), { initialize: true });
    const { skill } = answer.result;
    expect(skill.frontmatter).toEqual({
      name: 'git-workflow',
      description: 'Branch, commit and open pull requests the way this team does',
      license: 'MIT',
      metadata: { author: 'ada', version: '1.2' },
    });
    const onDisk = (path: string) => readFileSync(join(folder.dir, 'git-workflow', path));
    expect(skill.resources).toEqual([
      { uri: GIT, digest: sha256(GIT_SKILL_MD), size: Buffer.byteLength(GIT_SKILL_MD) },
      { uri: 'skill://git-workflow/assets/logo.png', digest: sha256(LOGO), size: LOGO.length },
      {
        uri: 'skill://git-workflow/references/branching.md',
        digest: sha256(onDisk('references/branching.md')),
        size: onDisk('references/branching.md').length,
      },
    ]);
    for (const resource of skill.resources) expect(resource.digest).toMatch(/^sha256:[\da-f]{64}$/);
  });

  it('a code-defined skill: SKILL.md built from the options and body(), with its files', async () => {
    const [get, read] = await app.inject(
      [request(1, 'skills/get', { uri: NOTES }), request(2, 'resources/read', { uri: NOTES })],
      { initialize: true },
    );
    expect(get.result.skill.frontmatter).toEqual({
      name: 'release-notes',
      description: 'Writes release notes from merged pull requests',
      license: 'Apache-2.0',
    });
    const text = read.result.contents[0].text as string;
    expect(text).toMatch(/^---\nname: release-notes\n[\s\S]*---\n\n# Release notes\n/);
    expect(get.result.skill.resources[0]).toEqual({
      uri: NOTES,
      digest: sha256(text),
      size: Buffer.byteLength(text),
    });
    expect(get.result.skill.resources[1].uri).toBe('skill://release-notes/templates/notes.md');
  });

  it('skills/get of an unknown skill, or without uri: −32602 naming it', async () => {
    const [unknown, missing] = await app.inject(
      [request(1, 'skills/get', { uri: 'skill://nope/SKILL.md' }), request(2, 'skills/get', {})],
      { initialize: true },
    );
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain('no skill is served at skill://nope/SKILL.md');
    expect(missing.error?.code).toBe(-32602);
    expect(missing.error?.message).toContain('skills/get needs "uri"');
  });

  it('a cursor this server did not give: −32602', async () => {
    const [answer] = await app.inject(request(1, 'skills/list', { cursor: 'bogus!' }), { initialize: true });
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain('cursor "bogus!"');
  });

  it('resources/read serves SKILL.md as text/markdown, text files as text, binary files as a blob', async () => {
    const [md, png, py] = await app.inject(
      [
        request(1, 'resources/read', { uri: GIT }),
        request(2, 'resources/read', { uri: 'skill://git-workflow/assets/logo.png' }),
        request(3, 'resources/read', { uri: 'skill://pdf-tools/scripts/fill.py' }),
      ],
      { initialize: true },
    );
    expect(md.result.contents).toEqual([{ uri: GIT, mimeType: 'text/markdown', text: GIT_SKILL_MD }]);
    expect(png.result.contents[0].mimeType).toBe('image/png');
    expect(Buffer.from(png.result.contents[0].blob, 'base64')).toEqual(LOGO);
    expect(sha256(Buffer.from(png.result.contents[0].blob, 'base64'))).toBe(sha256(LOGO));
    expect(py.result.contents[0]).toEqual({
      uri: 'skill://pdf-tools/scripts/fill.py',
      mimeType: 'text/x-python',
      text: 'print("fill")\n',
    });
  });

  it('resources/read of a directory or of an unknown file: resource not found (−32002), naming it', async () => {
    const [dir, unknown] = await app.inject(
      [
        request(1, 'resources/read', { uri: 'skill://git-workflow/references' }),
        request(2, 'resources/read', { uri: 'skill://git-workflow/nope.md' }),
      ],
      { initialize: true },
    );
    expect(dir.error?.code).toBe(-32002);
    expect(dir.error?.message).toBe(
      'skill://git-workflow/references is a directory; use resources/directory/read',
    );
    expect(unknown.error?.code).toBe(-32002);
    expect(unknown.error?.message).toContain('skill://git-workflow/nope.md');
  });

  it('resources/list lists each SKILL.md with its frontmatter name and description', async () => {
    const [answer] = await app.inject(request(1, 'resources/list'), { initialize: true });
    const skills = answer.result.resources.filter((r: { uri: string }) => r.uri.startsWith('skill://'));
    expect(skills).toContainEqual({
      uri: PDF,
      name: 'pdf-tools',
      description: 'Fill in and merge PDF forms',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(PDF_SKILL_MD),
    });
    expect(skills.map((r: { uri: string }) => r.uri)).toEqual([GIT, PDF, NOTES]);
  });

  it('resources/directory/read lists direct children, paginated; directories as inode/directory', async () => {
    const [root, refs] = await app.inject(
      [
        request(1, 'resources/directory/read', { uri: 'skill://git-workflow' }),
        request(2, 'resources/directory/read', { uri: 'skill://git-workflow/references' }),
      ],
      { initialize: true },
    );
    expect(root.result.resources).toEqual([
      { uri: GIT, name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(GIT_SKILL_MD) },
      { uri: 'skill://git-workflow/assets', name: 'assets', mimeType: 'inode/directory' },
    ]);
    const [rest] = await app.inject(
      request(3, 'resources/directory/read', { uri: 'skill://git-workflow', cursor: root.result.nextCursor }),
      { initialize: true },
    );
    expect(rest.result).toEqual({
      resources: [
        { uri: 'skill://git-workflow/references', name: 'references', mimeType: 'inode/directory' },
      ],
    });
    expect(refs.result.resources.map((r: { name: string }) => r.name)).toEqual(['branching.md']);
  });

  it('resources/directory/read of a file or of nothing: −32602 naming it', async () => {
    const [file, missing] = await app.inject(
      [
        request(1, 'resources/directory/read', { uri: GIT }),
        request(2, 'resources/directory/read', { uri: 'skill://nope' }),
      ],
      { initialize: true },
    );
    expect(file.error?.code).toBe(-32602);
    expect(file.error?.message).toContain(`${GIT} is a file, not a directory`);
    expect(missing.error?.code).toBe(-32602);
    expect(missing.error?.message).toContain('skill://nope is no directory');
  });
});

describe('skills in the stateless era (2026-07-28)', () => {
  it('server/discover advertises the extension', async () => {
    const [answer] = await app.inject(request(1, 'server/discover'), { stateless: true });
    expect(answer.result.capabilities.extensions[SKILLS_EXTENSION_ID]).toEqual({ directoryRead: true });
  });

  it('skills/list, skills/get, resources/directory/read and skill reads carry ttlMs 0 and cacheScope private', async () => {
    const answers = await app.inject(
      [
        request(1, 'skills/list'),
        request(2, 'skills/get', { uri: PDF }),
        request(3, 'resources/directory/read', { uri: 'skill://pdf-tools' }),
        request(4, 'resources/read', { uri: PDF }),
      ],
      { stateless: true },
    );
    for (const answer of answers) {
      expect(answer.result).toMatchObject({ ttlMs: 0, cacheScope: 'private', resultType: 'complete' });
    }
    expect(answers[1].result.skill.uri).toBe(PDF);
    expect(answers[3].result.contents[0].text).toBe(PDF_SKILL_MD);
  });

  it('an unknown skill and an unknown file are both −32602', async () => {
    const [get, read] = await app.inject(
      [
        request(1, 'skills/get', { uri: 'skill://nope/SKILL.md' }),
        request(2, 'resources/read', { uri: 'skill://nope/SKILL.md' }),
      ],
      { stateless: true },
    );
    expect(get.error?.code).toBe(-32602);
    expect(read.error?.code).toBe(-32602);
    expect(read.error?.message).toContain('skill://nope/SKILL.md');
  });

  it('the cache option sets the hints, and without directoryRead the method is unknown', async () => {
    @Module({
      imports: [
        SkillsModule.forRoot({
          dir: folder.dir,
          prefix: 'acme/tools',
          cache: { ttlMs: 5000, scope: 'public' },
        }),
      ],
    })
    class Cached {}
    const cached = await GantryFactory.create(Cached, { name: 'c', version: '1', logger: false });
    const [discover, list, read, dir] = await cached.inject(
      [
        request(1, 'server/discover'),
        request(2, 'skills/list'),
        request(3, 'resources/read', { uri: 'skill://acme/tools/pdf-tools/SKILL.md' }),
        request(4, 'resources/directory/read', { uri: 'skill://acme/tools/pdf-tools' }),
      ],
      { stateless: true },
    );
    await cached.close();
    expect(discover.result.capabilities.extensions[SKILLS_EXTENSION_ID]).toEqual({});
    expect(list.result).toMatchObject({ ttlMs: 5000, cacheScope: 'public' });
    expect(list.result.skills.map((s: { uri: string }) => s.uri)).toEqual([
      'skill://acme/tools/git-workflow/SKILL.md',
      'skill://acme/tools/pdf-tools/SKILL.md',
    ]);
    expect(read.result).toMatchObject({ ttlMs: 5000, cacheScope: 'public' });
    expect(dir.error?.code).toBe(-32601);
  });
});
