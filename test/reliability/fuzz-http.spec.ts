// Seeded protocol fuzzing of Streamable HTTP against one fixture server process, in both eras
// at once: a 2025-03-26 session (the revision with batches) and stateless 2026-07-28 requests
// on the same endpoint.
import { type ChildServer, countExitAsCrash, startFixture } from './support/child-server';
import { FUZZ_BUDGET_MS, FUZZ_MESSAGES, FUZZ_TEST_TIMEOUT_MS } from './support/config';
import { HttpFuzzLane } from './support/http-lane';
import { CLEAN, cleanFigures, type LaneFigures, recordFigures } from './support/results';

const BODY_LIMIT = 4 * 1024 * 1024; // GantryMcpOptions.bodyLimit default
const ERAS = [
  { era: 'session', protocolVersion: '2025-03-26', seedOffset: 5 },
  { era: 'stateless', protocolVersion: undefined, seedOffset: 6 },
] as const;

let server: ChildServer;
const runs = new Map<string, Promise<LaneFigures>>();

beforeAll(async () => {
  const started = await startFixture({ transport: 'http' });
  server = started.server;
  for (const { era, protocolVersion, seedOffset } of ERAS) {
    const lane = new HttpFuzzLane({
      name: `fuzz http ${era}`,
      era,
      protocolVersion,
      url: started.url,
      inputs: FUZZ_MESSAGES / 2,
      budgetMs: FUZZ_BUDGET_MS,
      bodyLimit: BODY_LIMIT,
      rss: () => server.rss(),
      seedOffset,
    });
    const run = lane.run().then((figures) => {
      countExitAsCrash(figures, server);
      recordFigures(figures);
      return figures;
    });
    run.catch(() => {}); // awaited (and reported) by its test
    runs.set(era, run);
  }
});

afterAll(async () => {
  await Promise.allSettled(runs.values());
  await server?.stop();
});

describe.each(ERAS.map((e) => e.era))('Streamable HTTP fuzzing, %s era', (era) => {
  it(
    `answers ${FUZZ_MESSAGES / 2} fuzzed requests as the oracle says, with no crash, hang or violation`,
    async () => {
      const figures = await (runs.get(era) as Promise<LaneFigures>);
      expect(cleanFigures(figures)).toEqual(CLEAN);
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
