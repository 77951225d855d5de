// The notes app's data under concurrent writers: an MCP host starts one stdio process per
// session, so several processes share one NOTES_DIR. Every note a process acknowledged must be
// in the store afterwards, whatever the interleaving, and no temporary file may be left.
//
// `runConcurrentWriters` is self-contained here; apps/notes/test/support/ may offer the same
// scenario as a reusable module (spawn N processes, M ops each, verify the store), and this
// file can call that instead with the same expectations.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNotes } from './support/child-server';
import { emptyFigures, noteExample, recordFigures } from './support/results';
import { StdioRpcClient } from './support/rpc-clients';

const PROCESSES = 8;
const OPS = 100;

interface WriterReport {
  /** Ids of the notes whose create_note answered success, with the title sent. */
  acknowledged: Map<string, string>;
  failedCalls: number;
  messages: number;
  crashed: number;
}

/** Starts `processes` notes servers on `dir`, each creating `ops` notes one after another, all at once. */
async function runConcurrentWriters(dir: string, processes: number, ops: number): Promise<WriterReport> {
  const report: WriterReport = { acknowledged: new Map(), failedCalls: 0, messages: 0, crashed: 0 };
  await Promise.all(
    Array.from({ length: processes }, async (_, p) => {
      const server = startNotes(dir);
      try {
        const client = new StdioRpcClient(server);
        await client.initialize();
        report.messages += 2;
        for (let op = 0; op < ops; op++) {
          const title = `p${p}-n${op}`;
          report.messages++;
          const answer = await client.request('tools/call', {
            name: 'create_note',
            arguments: { title, body: `written by process ${p}, op ${op}` },
          });
          const text: string | undefined = answer.result?.content?.[0]?.text;
          const id = answer.result?.isError ? undefined : text?.match(/^Created note (\S+):/)?.[1];
          if (id) report.acknowledged.set(id, title);
          else report.failedCalls++;
        }
        server.child.stdin.end();
        const exit = await server.exited;
        if (exit.code !== 0) report.crashed++;
      } finally {
        await server.stop();
      }
    }),
  );
  return report;
}

it(`${PROCESSES} notes processes × ${OPS} create_note on one NOTES_DIR: every acknowledged note survives`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-writers-'));
  const started = Date.now();
  try {
    const report = await runConcurrentWriters(dir, PROCESSES, OPS);
    const stored = JSON.parse(readFileSync(join(dir, 'notes.json'), 'utf8')) as {
      notes: Array<{ id: string; title: string }>;
    };
    const titles = new Map(stored.notes.map((note) => [note.id, note.title]));
    const missing = [...report.acknowledged].filter(([id, title]) => titles.get(id) !== title);
    const leftovers = readdirSync(dir).filter((file) => file.endsWith('.tmp'));

    const figures = emptyFigures(`notes ${PROCESSES} writers x ${OPS}`, 'notes');
    figures.inputs = PROCESSES * OPS;
    figures.messages = report.messages;
    figures.crashes = report.crashed;
    figures.violations = missing.length + report.failedCalls + leftovers.length;
    figures.durationMs = Date.now() - started;
    if (missing.length > 0)
      noteExample(
        figures,
        `${missing.length} of ${report.acknowledged.size} acknowledged notes missing from the store, e.g. ${missing[0][1]}`,
      );
    if (report.failedCalls > 0) noteExample(figures, `${report.failedCalls} create_note calls failed`);
    if (leftovers.length > 0) noteExample(figures, `temporary files left: ${leftovers.join(', ')}`);
    recordFigures(figures);

    expect({
      acknowledged: report.acknowledged.size,
      failedCalls: report.failedCalls,
      crashed: report.crashed,
      missing: missing.length,
      leftovers,
    }).toEqual({
      acknowledged: PROCESSES * OPS,
      failedCalls: 0,
      crashed: 0,
      missing: 0,
      leftovers: [],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
