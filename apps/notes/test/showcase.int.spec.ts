import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Changes } from '@gantry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const MAIN = resolve(__dirname, '../dist/main.js');

describe('apps/notes shows resources, prompts, completion, progress, logging and notifications', () => {
  let dir: string;
  let client: Client;
  const logs: unknown[] = [];
  const updated: string[] = [];
  let listChanged = 0;
  /** Announces every notification collected above. */
  const changes = new Changes();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-showcase-'));
    client = new Client({ name: 'showcase', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
      changes.changed();
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
      changes.changed();
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
      changes.changed();
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MAIN],
        env: { ...process.env, NOTES_DIR: dir } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
  });

  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('announces a new note: a log line, resources/updated for the subscribed index, and list_changed', async () => {
    await client.subscribeResource({ uri: 'notes://index' });
    const created = await client.callTool({
      name: 'create_note',
      arguments: { title: 'Plan', body: 'Ship Gantry', tags: ['work'] },
    });
    const id = /([0-9a-f]{8})/.exec((created.content as { text: string }[])[0].text)![1];
    await changes.until(() => updated.includes('notes://index') && listChanged > 0 && logs.length > 0, {
      what: 'the log line, resources/updated and list_changed',
    });
    expect(logs[0]).toEqual({
      level: 'info',
      logger: 'notes',
      data: { event: `created note ${id}` },
    });
    expect(updated).toEqual(['notes://index']);

    const { resources } = await client.listResources();
    expect(resources).toEqual([
      { uri: 'notes://index', name: 'index', title: 'All notes', mimeType: 'text/markdown' },
      // The board view (MCP Apps): hosts may prefetch it.
      {
        uri: 'ui://notes/board',
        name: 'notes-board',
        description: 'The notes as a board: todo, doing, done',
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { prefersBorder: true } },
      },
      { uri: `notes://${id}`, name: id, title: 'Plan', mimeType: 'text/markdown' },
      // The app's skill (io.modelcontextprotocol/skills): its SKILL.md is an ordinary resource.
      expect.objectContaining({
        uri: 'skill://tidy-notes/SKILL.md',
        name: 'tidy-notes',
        mimeType: 'text/markdown',
      }),
    ]);
    const index = await client.readResource({ uri: 'notes://index' });
    expect(index.contents).toEqual([
      {
        uri: 'notes://index',
        mimeType: 'text/markdown',
        text: `# Notes\n\n- [Plan](notes://${id}) — work\n`,
      },
    ]);
    const note = await client.readResource({ uri: `notes://${id}` });
    expect(note.contents).toEqual([
      { uri: `notes://${id}`, mimeType: 'text/markdown', text: '# Plan\n\nShip Gantry\n' },
    ]);
    const missing = await client.readResource({ uri: 'notes://ffffffff' }).catch((e) => e);
    expect([missing.code, missing.data]).toEqual([-32002, { uri: 'notes://ffffffff' }]);

    const templateCompletion = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{id}' },
      argument: { name: 'id', value: id.slice(0, 2) },
    });
    expect(templateCompletion.completion.values).toEqual([id]);
    const promptCompletion = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarize_note' },
      argument: { name: 'id', value: '' },
    });
    expect(promptCompletion.completion.values).toEqual([id]);
    const styles = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarize_note' },
      argument: { name: 'style', value: 'p' },
    });
    expect(styles.completion.values).toEqual(['paragraph']);

    const prompt = await client.getPrompt({ name: 'summarize_note', arguments: { id, style: 'tweet' } });
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'Summarize the following note in at most 280 characters.' },
      },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: `notes://${id}`, mimeType: 'text/markdown', text: '# Plan\n\nShip Gantry\n' },
        },
      },
    ]);

    const progress: number[] = [];
    const found = await client.callTool(
      { name: 'search_notes', arguments: { query: 'gantry' } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(progress).toEqual([0, 1, 2]);
    expect(found.structuredContent).toEqual({
      count: 1,
      notes: [{ id, title: 'Plan', tags: ['work'], status: 'todo', updatedAt: expect.any(String) }],
    });
  });
});
