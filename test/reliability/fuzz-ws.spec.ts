// Seeded protocol fuzzing of the WebSocket transport, in both eras at once against one fixture
// server process: every input gets what the oracle says, then a probe that must succeed. Binary
// frames, invalid UTF-8 and frames over maxPayload must close the socket with their code (1003,
// 1007, 1009); the lane then opens a new socket, as a client does.
import { type ChildServer, countExitAsCrash, startFixture } from './support/child-server';
import { FUZZ_BUDGET_MS, FUZZ_MESSAGES, FUZZ_TEST_TIMEOUT_MS } from './support/config';
import { CLEAN, cleanFigures, type LaneFigures, recordFigures } from './support/results';
import { StreamFuzzLane } from './support/stream-lane';
import { openWebSocket } from './support/ws-channel';

const MAX_PAYLOAD = 4 * 1024 * 1024; // WebSocketOptions.maxPayload default
const ERAS = [
  { era: 'session', protocolVersion: '2025-11-25', seedOffset: 3 },
  { era: 'stateless', protocolVersion: undefined, seedOffset: 4 },
] as const;

let server: ChildServer;
const runs = new Map<string, Promise<LaneFigures>>();

beforeAll(async () => {
  const started = await startFixture({ transport: 'ws' });
  server = started.server;
  for (const { era, protocolVersion, seedOffset } of ERAS) {
    const lane = new StreamFuzzLane({
      name: `fuzz ws ${era}`,
      transport: 'ws',
      era,
      protocolVersion,
      inputs: FUZZ_MESSAGES / 2,
      budgetMs: FUZZ_BUDGET_MS,
      maxFrameBytes: MAX_PAYLOAD,
      open: (onText) => openWebSocket(started.url, onText),
      rss: () => server.rss(),
      seedOffset,
      // One input in 400 is a binary frame holding a valid request.
      extraCase: (random) =>
        random.chance(1 / 400)
          ? { kind: 'binary', binary: true, bytes: Buffer.from('{"jsonrpc":"2.0","id":"b","method":"ping"}') }
          : undefined,
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

describe.each(ERAS.map((e) => e.era))('WebSocket fuzzing, %s era', (era) => {
  it(
    `answers ${FUZZ_MESSAGES / 2} fuzzed inputs as the oracle says, with no crash, hang or violation`,
    async () => {
      const figures = await (runs.get(era) as Promise<LaneFigures>);
      expect(cleanFigures(figures)).toEqual(CLEAN);
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
