import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Era } from '@gantry/client';
import { McpError } from '@gantry/protocol';
import { createNote, type NotesProcess, startNotesProcess } from './support/notes-processes';

// An id that names no note is the caller's mistake: the spec's error for bad params, never
// −32603 Internal error. Run against the built server over stdio, in both protocol eras.

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe.each<[Era, number]>([
  // MCP 2025-11-25, Server Features §Resources "Error Handling": resource not found is −32002.
  ['session', -32002],
  // MCP 2026-07-28 retired −32002: a missing resource is invalid params (−32602).
  ['stateless', -32602],
])('apps/notes asked about a note that does not exist (%s era)', (era, resourceNotFound) => {
  let dir: string;
  let notes: NotesProcess;
  let existing: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-ids-'));
    notes = await startNotesProcess(dir, { era });
    existing = await createNote(notes.client, 'Present');
  });
  afterAll(async () => {
    await notes.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers prompts/get summarize_note with −32602 naming the argument', async () => {
    const error = await rejection(notes.client.getPrompt('summarize_note', { id: 'x' }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("Unknown note id 'x' (argument 'id')");

    const found = await notes.client.getPrompt('summarize_note', { id: existing });
    expect(found.messages).toHaveLength(2);
  });

  it('answers resources/read of an unknown note with the era’s resource-not-found error', async () => {
    const error = await rejection(notes.client.readResource('notes://00000000'));
    expect(error.code).toBe(resourceNotFound);
    expect(error.message).toBe('Resource not found: notes://00000000');
  });

  it('answers get_note and delete_note of an unknown note with a tool error the model can read', async () => {
    // MCP 2025-11-25, Server Features §Tools "Error Handling": problems with the arguments of
    // a known tool are tool execution errors (isError), so the model can correct itself.
    for (const name of ['get_note', 'delete_note']) {
      const result = await notes.client.callTool(name, { id: '00000000' });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: 'No note with id 00000000' }]);
    }
  });
});
