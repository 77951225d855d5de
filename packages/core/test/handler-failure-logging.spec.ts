// A handler that throws an unexpected error is logged once, by the handler's own pipeline, and
// answered −32603 with its message. It used to be logged a second time as "Connection error"
// when the error travelled on to the Peer, which logs what it has to turn into −32603 itself.
import 'reflect-metadata';
import {
  Args,
  Complete,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type Logger,
  Module,
  Prompt,
  Resource,
} from '@gantry/core';
import { IsString } from 'class-validator';
import { handshake, openWire, type Wire } from './support/wire';

class Topic {
  @IsString() topic!: string;
}

@Injectable()
class BrokenHandlers {
  @Prompt({ description: 'Always fails' })
  broken(@Args() _args: Topic): string {
    throw new Error('the template is missing');
  }

  @Complete('topic')
  topics(): string[] {
    throw new Error('the index is offline');
  }

  @Resource({ uri: 'broken://disk', name: 'disk' })
  disk(): string {
    throw new Error('the disk is unreadable');
  }
}

@Module({ providers: [BrokenHandlers] })
class BrokenModule {}

const STATELESS_META =
  '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';

let app: GantryApplication;
let wire: Wire;
let errors: { message: string; details: unknown[] }[];

beforeEach(async () => {
  errors = [];
  const ignore = () => {};
  const logger: Logger = {
    debug: ignore,
    info: ignore,
    warn: ignore,
    error: (message, ...details) => void errors.push({ message, details }),
  };
  app = await GantryFactory.create(BrokenModule, {
    name: 'broken',
    version: '1.0.0',
    logger,
    stateless: { requestStateKey: 'k'.repeat(32) },
  });
  wire = await openWire(app);
});

afterEach(async () => {
  await app.close();
});

function internalError(id: number, message: string) {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${message}` } };
}

/** The logged messages, and that each carries the thrown error itself (its stack goes to the log). */
function loggedOnce(message: string, thrown: string) {
  expect(errors.map((e) => e.message)).toEqual([message]);
  expect((errors[0].details[0] as Error).message).toBe(thrown);
}

describe('a handler that throws is logged once', () => {
  it('prompts/get (session era)', async () => {
    await handshake(wire);
    wire.send(
      '{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"broken","arguments":{"topic":"x"}}}',
    );
    expect(await wire.next()).toEqual(internalError(2, 'the template is missing'));
    loggedOnce("Prompt 'broken' (BrokenHandlers.broken) failed:", 'the template is missing');
  });

  it('prompts/get (stateless era)', async () => {
    wire.send(
      `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"broken","arguments":{"topic":"x"},"_meta":${STATELESS_META}}}`,
    );
    expect(await wire.next()).toEqual(internalError(2, 'the template is missing'));
    loggedOnce("Prompt 'broken' (BrokenHandlers.broken) failed:", 'the template is missing');
  });

  it('resources/read', async () => {
    await handshake(wire);
    wire.send('{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"broken://disk"}}');
    expect(await wire.next()).toEqual(internalError(2, 'the disk is unreadable'));
    loggedOnce('Resource broken://disk (BrokenHandlers.disk) failed:', 'the disk is unreadable');
  });

  it('completion/complete', async () => {
    await handshake(wire);
    wire.send(
      '{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"broken"},"argument":{"name":"topic","value":"a"}}}',
    );
    expect(await wire.next()).toEqual(internalError(2, 'the index is offline'));
    loggedOnce("@Complete('topic') (BrokenHandlers.topics) failed:", 'the index is offline');
  });
});
