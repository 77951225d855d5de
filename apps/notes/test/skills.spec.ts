// The notes app ships one skill, tidy-notes (apps/notes/skills/tidy-notes), served through the
// io.modelcontextprotocol/skills extension in both eras.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SKILLS_EXTENSION_ID } from '@gantry/core';
import { Test } from '@gantry/testing';
import { AppModule, NOTES_SKILLS_DIR } from '../src/app.module';
import { NOTES_DIR } from '../src/notes.repository';

const SKILL = 'skill://tidy-notes/SKILL.md';
const onDisk = (path: string) => readFileSync(join(NOTES_SKILLS_DIR, 'tidy-notes', path));
const digest = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('apps/notes serves the tidy-notes skill', () => {
  it('lists it with its files and digests, and serves SKILL.md as text/markdown', async () => {
    const module = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(NOTES_DIR)
      .useValue('/nonexistent/gantry-test')
      .compile();
    try {
      const [init, list, read, dir] = await module.app.inject([
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} },
        { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: SKILL } },
        { jsonrpc: '2.0', id: 3, method: 'resources/directory/read', params: { uri: 'skill://tidy-notes' } },
      ]);
      expect(init.result.capabilities.extensions).toEqual({
        [SKILLS_EXTENSION_ID]: { directoryRead: true },
        'io.modelcontextprotocol/tasks': {},
        'io.modelcontextprotocol/ui': {},
      });
      const [skill] = list.result.skills;
      expect(skill.uri).toBe(SKILL);
      expect(skill.frontmatter).toMatchObject({ name: 'tidy-notes', license: 'MIT' });
      expect(skill.frontmatter.description).toMatch(/^How to keep a tidy notes store/);
      expect(skill.resources).toEqual([
        { uri: SKILL, digest: digest(onDisk('SKILL.md')), size: onDisk('SKILL.md').length },
        {
          uri: 'skill://tidy-notes/references/tags.md',
          digest: digest(onDisk('references/tags.md')),
          size: onDisk('references/tags.md').length,
        },
      ]);
      expect(read.result.contents).toEqual([
        { uri: SKILL, mimeType: 'text/markdown', text: onDisk('SKILL.md').toString('utf8') },
      ]);
      expect(dir.result.resources.map((r: { name: string }) => r.name)).toEqual(['SKILL.md', 'references']);
    } finally {
      await module.close();
    }
  });
});
