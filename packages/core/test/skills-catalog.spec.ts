import 'reflect-metadata';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GantryFactory, Module, Skill, SkillsCatalog, SkillsModule } from '@gantry/core';
import { Test } from '@gantry/testing';
import { sha256, skillsDir, writeTree } from './support/skills-dir';

const create = (dir: string, extra: object = {}) => {
  @Module({ imports: [SkillsModule.forRoot({ dir, ...extra })] })
  class AppModule {}
  return GantryFactory.create(AppModule, { name: 'skills', version: '1.0.0', logger: false });
};

describe('SkillsCatalog.reload()', () => {
  it('adds, changes and removes skills and tells clients with resources/list_changed', async () => {
    const folder = skillsDir();
    @Module({ imports: [SkillsModule.forRoot({ dir: folder.dir })] })
    class AppModule {}
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    try {
      const client = await module.createClient();
      let listChanged = 0;
      const updated: string[] = [];
      client.onNotification('notifications/resources/list_changed', () => {
        listChanged++;
      });
      client.onNotification('notifications/resources/updated', (n) => {
        updated.push((n.params as { uri: string }).uri);
      });
      const catalog = module.get(SkillsCatalog);
      await client.request('resources/subscribe', { uri: 'skill://pdf-tools/scripts/fill.py' });

      expect(await catalog.reload()).toEqual({ added: [], removed: [], changed: [] });
      await client.ping();
      expect(listChanged).toBe(0);

      writeTree(folder.dir, {
        'new-skill/SKILL.md': '---\nname: new-skill\ndescription: Added while serving\n---\nHello\n',
        'pdf-tools/scripts/fill.py': 'print("fill v2")\n',
      });
      rmSync(join(folder.dir, 'git-workflow'), { recursive: true });
      expect(await catalog.reload()).toEqual({
        added: ['skill://new-skill/SKILL.md'],
        removed: ['skill://git-workflow/SKILL.md'],
        changed: ['skill://pdf-tools/SKILL.md'],
      });
      await client.ping();
      expect(listChanged).toBe(1);
      expect(updated).toEqual(['skill://pdf-tools/scripts/fill.py']);

      const listed = await client.request<{ skills: { uri: string; resources: { digest: string }[] }[] }>(
        'skills/list',
      );
      expect(listed.skills.map((s) => s.uri)).toEqual([
        'skill://new-skill/SKILL.md',
        'skill://pdf-tools/SKILL.md',
      ]);
      expect(listed.skills[1].resources[1].digest).toBe(sha256('print("fill v2")\n'));
    } finally {
      await module.close();
      folder.remove();
    }
  });

  it('a bad skill on reload rejects naming it and keeps the catalog as it was', async () => {
    const folder = skillsDir();
    const app = await create(folder.dir);
    try {
      const catalog = app.get(SkillsCatalog);
      writeTree(folder.dir, { 'broken/SKILL.md': '---\nname: other\ndescription: x\n---\n' });
      await expect(catalog.reload()).rejects.toThrow(
        `Skill ${join(folder.dir, 'broken')}/SKILL.md: name "other" must equal the skill's directory name "broken"`,
      );
      expect(catalog.entries.map((e) => e.uri)).toEqual([
        'skill://git-workflow/SKILL.md',
        'skill://pdf-tools/SKILL.md',
      ]);
    } finally {
      await app.close();
      folder.remove();
    }
  });

  it('a file changed on disk without reload is not served stale: internal error', async () => {
    const folder = skillsDir();
    const app = await create(folder.dir);
    try {
      writeFileSync(join(folder.dir, 'pdf-tools', 'scripts', 'fill.py'), 'tampered\n');
      const [answer] = await app.inject(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'resources/read',
          params: { uri: 'skill://pdf-tools/scripts/fill.py' },
        },
        { initialize: true },
      );
      expect(answer.error?.code).toBe(-32603);
      expect(answer.error?.message).toContain(
        'skill://pdf-tools/scripts/fill.py could not be read (it changed since',
      );
      // The client learns nothing of where the server keeps the skill.
      expect(answer.error?.message).not.toContain(folder.dir);
    } finally {
      await app.close();
      folder.remove();
    }
  });
});

/** Bootstrap wraps what the catalog's factory threw. */
const FACTORY = 'The factory of SkillsCatalog in module SkillsModule threw: ';

describe('bootstrap errors name the skill file and the problem', () => {
  const withSkill = async (files: Record<string, string | Buffer>) => {
    const folder = skillsDir();
    writeTree(folder.dir, files);
    try {
      return await create(folder.dir).then(
        async (app) => {
          await app.close();
          return 'created';
        },
        (error: Error) => error.message.replace(folder.dir, '<dir>'),
      );
    } finally {
      folder.remove();
    }
  };

  it('a name that is not the directory name', async () => {
    expect(await withSkill({ 'tidy/SKILL.md': '---\nname: messy\ndescription: d\n---\n' })).toBe(
      `${FACTORY}Skill <dir>/tidy/SKILL.md: name "messy" must equal the skill's directory name "tidy" (the last segment of its path)`,
    );
  });

  it('no description, invalid YAML, no frontmatter, no SKILL.md', async () => {
    expect(await withSkill({ 'a/SKILL.md': '---\nname: a\n---\n' })).toContain(
      'Skill <dir>/a/SKILL.md: description must be a string of 1-1024 characters',
    );
    expect(await withSkill({ 'a/SKILL.md': '---\nname: a\ndescription: [unclosed\n---\n' })).toContain(
      'Skill <dir>/a/SKILL.md: the frontmatter is not valid YAML',
    );
    expect(await withSkill({ 'a/SKILL.md': '# just markdown\n' })).toContain(
      'Skill <dir>/a/SKILL.md: must begin with a "---" line',
    );
    expect(await withSkill({ 'a/notes.md': 'x' })).toContain('Skill <dir>/a: no SKILL.md in the directory');
  });

  it('more than 512 files, naming the 513th', async () => {
    const files: Record<string, string> = { 'big/SKILL.md': '---\nname: big\ndescription: d\n---\n' };
    for (let i = 0; i < 512; i++) files[`big/f${String(i).padStart(3, '0')}.txt`] = 'x';
    expect(await withSkill(files)).toBe(
      `${FACTORY}Skill <dir>/big: f511.txt is file number 513: a skill may hold at most 512 files; split the skill`,
    );
  });

  it('more than 16 MiB, naming the file that crosses the limit', async () => {
    expect(
      await withSkill({
        'big/SKILL.md': '---\nname: big\ndescription: d\n---\n',
        'big/data.bin': Buffer.alloc(16 * 1024 * 1024),
      }),
    ).toMatch(
      /^The factory of SkillsCatalog in module SkillsModule threw: Skill <dir>\/big: data\.bin brings the skill to 16777\d+ bytes: a skill may hold at most 16777216 bytes/,
    );
  });

  it('symbolic links, to a file in a skill or to a whole skill, are refused naming them', async () => {
    const folder = skillsDir();
    try {
      symlinkSync('/etc/hostname', join(folder.dir, 'pdf-tools', 'leak.txt'));
      await expect(create(folder.dir)).rejects.toThrow(
        `Skill ${join(folder.dir, 'pdf-tools')}: leak.txt is a symbolic link: skills serve regular files only`,
      );
      rmSync(join(folder.dir, 'pdf-tools', 'leak.txt'));
      symlinkSync(join(folder.dir, 'pdf-tools'), join(folder.dir, 'alias'));
      await expect(create(folder.dir)).rejects.toThrow(
        `Skill ${join(folder.dir, 'alias')}: is a symbolic link`,
      );
    } finally {
      folder.remove();
    }
  });

  it('two skills at one URI: a folder skill and a @Skill class', async () => {
    const folder = skillsDir();
    @Skill({ name: 'pdf-tools', description: 'again', body: 'b' })
    class Again {}
    @Module({ imports: [SkillsModule.forRoot({ dir: folder.dir, skills: [Again] })] })
    class Twice {}
    try {
      await expect(GantryFactory.create(Twice, { name: 'x', version: '1', logger: false })).rejects.toThrow(
        `Two skills are served at skill://pdf-tools/SKILL.md: ${join(folder.dir, 'pdf-tools')} and @Skill on Again`,
      );
    } finally {
      folder.remove();
    }
  });

  it('options: unknown keys, nothing to serve, a class without @Skill, a bad prefix, a missing folder', async () => {
    expect(() => SkillsModule.forRoot({ dir: 'x', pagesize: 3 } as object)).toThrow(
      "SkillsModule.forRoot() unknown option 'pagesize'",
    );
    expect(() => SkillsModule.forRoot({})).toThrow(
      'needs dir (a folder of skills) or skills (@Skill classes)',
    );
    class Plain {}
    expect(() => SkillsModule.forRoot({ skills: [Plain] })).toThrow(
      'skills lists Plain, which has no @Skill(...)',
    );
    await expect(create('/nonexistent/skills-folder')).rejects.toThrow(
      'SkillsModule dir /nonexistent/skills-folder cannot be read',
    );
    const folder = skillsDir();
    try {
      await expect(create(folder.dir, { prefix: '/acme' })).rejects.toThrow(
        'SkillsModule prefix "/acme" must be path segments',
      );
    } finally {
      folder.remove();
    }
  });

  it('@Skill without a body', () => {
    expect(() => Skill({ name: 'x', description: 'y' })(class NoBody {})).toThrow(
      '@Skill on NoBody: give the SKILL.md body as the body option or a body() method',
    );
  });
});
