// The requestState-key warning: without `stateless.requestStateKey` or GANTRY_STATE_KEY, a
// server that listens on the network (HTTP or WebSocket, where nodes may share a load balancer)
// warns once per process, naming both, however many listeners, apps and restarts follow.
// stdio (one process per client) and servers with a key never warn.
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import {
  type GantryApplication,
  GantryFactory,
  Injectable,
  type Logger,
  Module,
  stdio,
  Tool,
} from '@gantry/core';
import { http } from '@gantry/fastify';
import { websocket } from '../src';

@Injectable()
class Hello {
  @Tool({ description: 'Says hello' })
  hello(): string {
    return 'hello';
  }
}

@Module({ providers: [Hello] })
class HelloModule {}

const warnings: string[] = [];
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message) => void warnings.push(message),
  error: () => {},
};

const apps: GantryApplication[] = [];

async function create(options: { requestStateKey?: string } = {}): Promise<GantryApplication> {
  const app = await GantryFactory.create(HelloModule, {
    name: 'hello',
    version: '1.0.0',
    logger,
    stateless: options,
  });
  apps.push(app);
  return app;
}

/** Listens over HTTP and WebSocket on free loopback ports. */
async function listenOnNetwork(app: GantryApplication): Promise<void> {
  await app.listen(http({ port: 0, onListening: () => {} }));
  await app.listen(websocket({ port: 0 }));
}

const saved = process.env.GANTRY_STATE_KEY;
beforeAll(() => {
  delete process.env.GANTRY_STATE_KEY;
});
afterAll(async () => {
  if (saved !== undefined) process.env.GANTRY_STATE_KEY = saved;
  await Promise.all(apps.map((app) => app.close()));
});

it('warns once per process, only for network listeners without a key, saying what to set', async () => {
  const keyed = await create({ requestStateKey: 'k'.repeat(32) });
  await listenOnNetwork(keyed);
  await keyed.close();
  expect(warnings).toEqual([]);

  const first = await create();
  await first.listen(stdio({ input: new PassThrough(), output: new PassThrough(), closeOnEnd: false }));
  expect(warnings).toEqual([]);

  await listenOnNetwork(first);
  expect(warnings).toEqual([
    'No requestState key is configured, so stateless-era (2026-07-28) input_required rounds are signed with a random key of this server: ' +
      'a retry that reaches another node, or this one after a restart, is refused with -32602. ' +
      'If more than one node serves this app (behind a load balancer), give every node the same secret of at least 32 bytes ' +
      'in the GANTRY_STATE_KEY environment variable or in GantryFactory.create(module, { stateless: { requestStateKey } }). ' +
      'This warning is shown once per process.',
  ]);

  // More listeners, a second app, a restart: no more warnings.
  await listenOnNetwork(first);
  const second = await create();
  await listenOnNetwork(second);
  await first.close();
  await second.close();
  const restarted = await create();
  await listenOnNetwork(restarted);
  await restarted.close();
  expect(warnings).toHaveLength(1);
});
