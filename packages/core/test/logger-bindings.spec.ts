// Lines about one request carry its ids: the failure of a handler is logged through
// `logger.child({ sessionId, requestId })` where the logger has `child` (pino, Gantry's own),
// and as before where it does not.
import 'reflect-metadata';
import {
  Args,
  GantryFactory,
  Injectable,
  type LogBindings,
  type Logger,
  loggerWith,
  Module,
  type PinoLike,
  Prompt,
  pinoLogger,
  routeDefaultLogger,
  StderrLogger,
  Tool,
} from '@gantry/core';
import { IsString } from 'class-validator';
import { handshake, openWire } from './support/wire';

class Topic {
  @IsString() topic!: string;
}

@Injectable()
class Failing {
  @Tool({ description: 'Always throws' })
  explode(): string {
    throw new Error('kaboom');
  }

  @Prompt({ description: 'Always fails' })
  broken(@Args() _args: Topic): string {
    throw new Error('the template is missing');
  }
}

@Module({ providers: [Failing] })
class FailingModule {}

/** A logger with `child`, keeping each error line with the bindings of the logger that wrote it. */
function recordingLogger() {
  const lines: { message: string; bindings: LogBindings; error: unknown }[] = [];
  const make = (bindings: LogBindings): Logger => ({
    debug() {},
    info() {},
    warn() {},
    error: (message, error) => void lines.push({ message, bindings, error }),
    child: (more) => make({ ...bindings, ...more }),
  });
  return { lines, logger: make({}) };
}

describe('a failing handler is logged with its request', () => {
  it.each(['session', 'stateless'] as const)('tools/call and prompts/get, %s era', async (era) => {
    const { lines, logger } = recordingLogger();
    const app = await GantryFactory.create(FailingModule, { name: 'failing', version: '1', logger });
    const wire = await openWire(app);
    try {
      const meta =
        era === 'stateless'
          ? {
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            }
          : {};
      if (era === 'session') await handshake(wire);
      wire.send(
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'explode', ...meta } }),
      );
      expect(await wire.next()).toMatchObject({ id: 5, result: { isError: true } });
      wire.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'p-6',
          method: 'prompts/get',
          params: { name: 'broken', arguments: { topic: 'x' }, ...meta },
        }),
      );
      expect(await wire.next()).toMatchObject({ id: 'p-6', error: { code: -32603 } });
      // An in-memory connection has no session id of its own: the request id alone.
      expect(lines.map(({ message, bindings }) => [message, bindings])).toEqual([
        ["Tool 'explode' (Failing.explode) failed:", { requestId: 5 }],
        ["Prompt 'broken' (Failing.broken) failed:", { requestId: 'p-6' }],
      ]);
      expect((lines[0].error as Error).message).toBe('kaboom');
    } finally {
      await wire.close();
      await app.close();
    }
  });
});

describe('child loggers', () => {
  it("StderrLogger appends a child's fields to its lines, after the details", () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const root = new StderrLogger('test', 'info');
      root.child({ sessionId: 'abc' }).child({ requestId: 3 }).warn('slow', { ms: 5 });
      root.debug('below the level');
      root.error('plain');
    } finally {
      write.mockRestore();
    }
    expect(written).toEqual([
      '[test] warn: slow {"ms":5} (sessionId=abc requestId=3)\n',
      '[test] error: plain\n',
    ]);
  });

  it("pinoLogger binds through pino's child, or merges the fields into each line without one", () => {
    const seen: object[] = [];
    const levels = (bound: object): PinoLike => ({
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (fields) => void seen.push({ ...bound, ...fields }),
    });
    const withChild: PinoLike = { ...levels({}), child: (bindings) => levels(bindings) };
    pinoLogger(withChild).child?.({ requestId: 1 }).error('via child');
    pinoLogger(levels({})).child?.({ requestId: 2 }).error('merged', new Error('e'));
    expect(seen).toEqual([{ requestId: 1 }, { requestId: 2, err: expect.any(Error) }]);
  });

  it('the default logger binds to where it writes when the line is written, routed later or not', async () => {
    const app = await GantryFactory.create(FailingModule, { name: 'default', version: '1' });
    try {
      const child = loggerWith(app.logger, { requestId: 9 });
      const { lines, logger } = recordingLogger();
      expect(routeDefaultLogger(app.logger, logger)).toBe(true);
      child.error('after routing', 'x');
      expect(lines).toEqual([{ message: 'after routing', bindings: { requestId: 9 }, error: 'x' }]);
    } finally {
      await app.close();
    }
  });

  it('leaves a logger without child as it is', () => {
    const plain: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    expect(loggerWith(plain, { requestId: 1 })).toBe(plain);
  });
});
