import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client as GantryClient, StdioClientTransport as GantryStdioTransport } from '@gantry/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { NOTES_TOOLS } from './support/notes-processes';

// `npm test` builds before Jest runs, so the example server is exercised as users run it.
const MAIN = resolve(__dirname, '../dist/main.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-notes-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function text(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  return content[0].text;
}

describe('the official SDK client against apps/notes over stdio', () => {
  it('lists the tools and calls each one', async () => {
    const client = new SdkClient({ name: 'sdk-interop', version: '1.0.0' });
    const transport = new SdkStdioTransport({
      command: process.execPath,
      args: [MAIN],
      env: { ...process.env, NOTES_DIR: dir } as Record<string, string>,
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toEqual({
        name: 'gantry-notes',
        title: 'Gantry Notes',
        version: '0.1.0',
      });
      expect(client.getInstructions()).toBe(
        'A personal notes store. Search before creating, to avoid duplicates.',
      );

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(NOTES_TOOLS);
      const search = tools.find((t) => t.name === 'search_notes')!;
      expect(search.inputSchema.required).toEqual(['query']);
      expect(search.annotations).toEqual({ readOnlyHint: true });

      const created = await client.callTool({
        name: 'create_note',
        arguments: { title: 'Groceries', body: 'milk, eggs', tags: ['home'] },
      });
      const id = /^Created note ([0-9a-f]{8}): Groceries$/.exec(text(created))?.[1];
      expect(id).toBeDefined();

      const got = await client.callTool({ name: 'get_note', arguments: { id } }, CallToolResultSchema);
      expect(JSON.parse(text(got))).toMatchObject({
        id,
        title: 'Groceries',
        body: 'milk, eggs',
        tags: ['home'],
      });

      const found = await client.callTool({ name: 'search_notes', arguments: { query: 'EGGS' } });
      expect(JSON.parse(text(found))).toMatchObject({ count: 1, notes: [{ id, title: 'Groceries' }] });

      const invalid = await client.callTool({ name: 'create_note', arguments: { title: '', body: 'x' } });
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toBe(
        "Invalid arguments for tool 'create_note': title: must be longer than or equal to 1 characters",
      );

      const deleted = await client.callTool({ name: 'delete_note', arguments: { id } });
      expect(text(deleted)).toBe(`Deleted note ${id}`);
      const gone = await client.callTool({ name: 'get_note', arguments: { id } });
      expect(gone.isError).toBe(true);
      expect(text(gone)).toBe(`No note with id ${id}`);

      // The store on disk is valid JSON after the writes.
      expect(JSON.parse(readFileSync(join(dir, 'notes.json'), 'utf8'))).toEqual({ version: 1, notes: [] });
    } finally {
      await client.close();
    }
  });
});

describe("Gantry's own client against apps/notes over stdio", () => {
  it('lists the tools and calls each one', async () => {
    const client = new GantryClient({ name: 'gantry-interop', version: '1.0.0' });
    await client.connect(
      new GantryStdioTransport({
        command: process.execPath,
        args: [MAIN],
        env: { ...process.env, NOTES_DIR: dir },
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.serverInfo).toEqual({ name: 'gantry-notes', title: 'Gantry Notes', version: '0.1.0' });
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(NOTES_TOOLS);

      const id = /([0-9a-f]{8})/.exec(
        text(await client.callTool('create_note', { title: 'A', body: 'alpha beta', tags: ['x'] })),
      )![1];
      await client.callTool('create_note', { title: 'B', body: 'beta gamma' });
      expect(JSON.parse(text(await client.callTool('get_note', { id })))).toMatchObject({
        title: 'A',
        tags: ['x'],
      });
      const both = JSON.parse(text(await client.callTool('search_notes', { query: 'beta' })));
      expect(both.notes.map((n: { title: string }) => n.title)).toEqual(['B', 'A']);
      const tagged = JSON.parse(
        text(await client.callTool('search_notes', { query: '', tag: 'x', limit: 5 })),
      );
      expect(tagged.notes.map((n: { title: string }) => n.title)).toEqual(['A']);
      expect(text(await client.callTool('delete_note', { id }))).toBe(`Deleted note ${id}`);
    } finally {
      await client.close();
    }
  });
});
