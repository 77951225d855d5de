// Seeded protocol fuzzing of the stdio transport, in both eras at once (one child process of the
// fixture server per era): every input gets what the oracle says, then a probe that must succeed.
import { FUZZ_BUDGET_MS, FUZZ_MESSAGES, FUZZ_TEST_TIMEOUT_MS } from './support/config';
import { CLEAN, cleanFigures, type LaneFigures, recordFigures } from './support/results';
import { StdioChannels } from './support/stdio-channel';
import { StreamFuzzLane } from './support/stream-lane';

const MAX_LINE_BYTES = 4 * 1024 * 1024; // StdioOptions.maxLineBytes default
const ERAS = [
  // 2025-03-26, the one revision with batches, so that batches are fuzzed too.
  { era: 'session', protocolVersion: '2025-03-26', seedOffset: 1 },
  { era: 'stateless', protocolVersion: undefined, seedOffset: 2 },
] as const;

const runs = new Map<string, Promise<LaneFigures>>();

beforeAll(() => {
  for (const { era, protocolVersion, seedOffset } of ERAS) {
    const channels = new StdioChannels();
    const lane = new StreamFuzzLane({
      name: `fuzz stdio ${era}`,
      transport: 'stdio',
      era,
      protocolVersion,
      inputs: FUZZ_MESSAGES / 2,
      budgetMs: FUZZ_BUDGET_MS,
      maxFrameBytes: MAX_LINE_BYTES,
      open: channels.open,
      rss: channels.rss,
      seedOffset,
    });
    const run = lane.run().then((figures) => {
      recordFigures(figures);
      return figures;
    });
    run.catch(() => {}); // awaited (and reported) by its test
    runs.set(era, run);
  }
});

describe.each(ERAS.map((e) => e.era))('stdio fuzzing, %s era', (era) => {
  it(
    `answers ${FUZZ_MESSAGES / 2} fuzzed inputs as the oracle says, with no crash, hang or violation`,
    async () => {
      const figures = await (runs.get(era) as Promise<LaneFigures>);
      expect(cleanFigures(figures)).toEqual(CLEAN);
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
