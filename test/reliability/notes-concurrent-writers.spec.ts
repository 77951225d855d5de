// The notes app's data under concurrent writers: an MCP host starts one stdio process per
// session, so several processes share one NOTES_DIR. Every note a process acknowledged must be
// in the store afterwards, whatever the interleaving, and no temporary file may be left.
//
// The scenario (spawn N processes, M create_note calls each, all in flight at once) is the
// data-safety tests' own (apps/notes/test/support/notes-processes.ts), run here at a larger scale;
// a process that crashes fails its calls, so it counts among the failures.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConcurrentWriters, storedNoteIds } from '../../apps/notes/test/support/notes-processes';
import { emptyFigures, noteExample, recordFigures } from './support/results';

const PROCESSES = 8;
const OPS = 100;

it(`${PROCESSES} notes processes × ${OPS} create_note on one NOTES_DIR: every acknowledged note survives`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-writers-'));
  const started = Date.now();
  try {
    const report = await runConcurrentWriters({ dir, processes: PROCESSES, opsPerProcess: OPS });
    const stored = new Set(storedNoteIds(dir));
    const missing = report.acknowledged.filter((id) => !stored.has(id));
    const leftovers = readdirSync(dir).filter((file) => file.endsWith('.tmp'));

    const figures = emptyFigures(`notes ${PROCESSES} writers x ${OPS}`, 'notes');
    figures.inputs = PROCESSES * OPS;
    // initialize + initialized per process, then one call per op.
    figures.messages = PROCESSES * (2 + OPS);
    figures.violations = missing.length + report.failures.length + leftovers.length;
    figures.durationMs = Date.now() - started;
    if (missing.length > 0)
      noteExample(
        figures,
        `${missing.length} of ${report.acknowledged.length} acknowledged notes missing from the store, e.g. ${missing[0]}`,
      );
    if (report.failures.length > 0)
      noteExample(figures, `${report.failures.length} create_note calls failed, e.g. ${report.failures[0]}`);
    if (leftovers.length > 0) noteExample(figures, `temporary files left: ${leftovers.join(', ')}`);
    recordFigures(figures);

    expect({
      acknowledged: report.acknowledged.length,
      failures: report.failures,
      missing: missing.length,
      leftovers,
    }).toEqual({
      acknowledged: PROCESSES * OPS,
      failures: [],
      missing: 0,
      leftovers: [],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
