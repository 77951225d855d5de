// Deeply nested params on the wire (literal JSON through the real stdio transport): refused
// with −32602 before any handler, validator or hashing sees them, in both eras, and the
// connection keeps serving. Without the limit, 10k-deep arrays overflowed the stack inside
// class-transformer, JSON.stringify or canonicalJson and came back as −32603.
import 'reflect-metadata';
import { type GantryApplication, type GantryServerOptions, type Logger } from '@gantry/core';
import { createDualEraApp } from './fixtures/dual-era-app';
import { handshake, openWire, type Wire } from './support/wire';

const STATELESS_META =
  '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}';

/** `[[[…]]]`, `depth` arrays deep, as literal JSON text. */
function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** A logger that records every entry, so a test can say nothing was logged. */
function recordingLogger(): Logger & { entries: { level: string; message: string }[] } {
  const entries: { level: string; message: string }[] = [];
  const record = (level: string) => (message: string) => entries.push({ level, message });
  return {
    entries,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
}

let app: GantryApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(options: Partial<GantryServerOptions> = {}) {
  const logger = recordingLogger();
  app = await createDualEraApp({ logger, ...options });
  const wire = await openWire(app);
  return { wire, logger };
}

function depthError(id: number, method: string, limit = 64) {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params: the params of ${method} nest deeper than ${limit} levels (the server's limit, maxParamsDepth)`,
      data: { maxParamsDepth: limit },
    },
  };
}

async function expectPing(wire: Wire, id: number): Promise<void> {
  wire.send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
  expect(await wire.next()).toEqual({ jsonrpc: '2.0', id, result: {} });
}

describe.each([10_000, 100_000])('params %i levels deep', (depth) => {
  const deep = nested(depth);

  it('tools/call arguments (session era) answer −32602, log nothing, and ping still works', async () => {
    const { wire, logger } = await start();
    await handshake(wire);
    wire.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":${deep}}}}`,
    );
    expect(await wire.next()).toEqual(depthError(2, 'tools/call'));
    await expectPing(wire, 3);
    expect(logger.entries).toEqual([]);
  });

  it('prompts/get arguments in a requestState retry (stateless era) answer −32602', async () => {
    const { wire, logger } = await start();
    wire.send(
      `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"packing","arguments":{"city":${deep}},"requestState":"x.y","_meta":${STATELESS_META}}}`,
    );
    expect(await wire.next()).toEqual(depthError(2, 'prompts/get'));
    await expectPing(wire, 3);
    expect(logger.entries).toEqual([]);
  });

  it('logging/setLevel params answer −32602', async () => {
    const { wire, logger } = await start();
    await handshake(wire);
    wire.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":${deep}}}`);
    expect(await wire.next()).toEqual(depthError(2, 'logging/setLevel'));
    await expectPing(wire, 3);
    expect(logger.entries).toEqual([]);
  });

  it('a requestState retry with deep arguments (stateless era) answers −32602', async () => {
    const { wire, logger } = await start();
    wire.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan_trip","arguments":{"city":${deep}},"requestState":"x.y","inputResponses":{},"_meta":${STATELESS_META}}}`,
    );
    expect(await wire.next()).toEqual(depthError(2, 'tools/call'));
    await expectPing(wire, 3);
    expect(logger.entries).toEqual([]);
  });

  it('deep inputResponses in a genuine retry (stateless era) answer −32602', async () => {
    const { wire, logger } = await start();
    wire.send(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plan_trip","arguments":{"city":"Oslo"},"_meta":${STATELESS_META}}}`,
    );
    const first = await wire.next();
    expect(first.result.resultType).toBe('input_required');
    const state = JSON.stringify(first.result.requestState);
    wire.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan_trip","arguments":{"city":"Oslo"},"requestState":${state},"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"Ada","more":${deep}}}},"_meta":${STATELESS_META}}}`,
    );
    expect(await wire.next()).toEqual(depthError(2, 'tools/call'));
    await expectPing(wire, 3);
    expect(logger.entries).toEqual([]);
  });

  it('a whole message that is a deep array parses and is refused as a message, not a crash', async () => {
    const { wire, logger } = await start();
    await handshake(wire);
    wire.send(deep);
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
      },
    });
    await expectPing(wire, 3);
    expect(logger.entries).toEqual([]);
  });
});

describe('a deep answer to a server request (session era)', () => {
  it('an elicitation answer nested 100k deep fails the elicitation with a clear error, not a stack overflow', async () => {
    const { wire } = await start();
    wire.send(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"c","version":"1"}}}',
    );
    await wire.next();
    wire.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    wire.send(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan_trip","arguments":{"city":"Oslo"}}}',
    );
    const ask = await wire.next();
    expect(ask.method).toBe('elicitation/create');
    wire.send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(ask.id)},"result":{"action":"accept","content":{"name":"Ada","more":${nested(100_000)}}}}`,
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        isError: true,
        content: [
          {
            type: 'text',
            text: 'The answer to the elicitation "Who travels to Oslo?" is invalid: it nests deeper than 64 levels',
          },
        ],
      },
    });
    await expectPing(wire, 3);
  });
});

describe('the depth limit', () => {
  /** tools/call params `depth` levels deep: params → arguments → text → arrays. */
  function callAtDepth(id: number, depth: number): string {
    return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":${nested(depth - 2)}}}}`;
  }

  it('lets params exactly 64 levels deep through to the tool (whose validation refuses the array)', async () => {
    const { wire } = await start();
    await handshake(wire);
    wire.send(callAtDepth(2, 64));
    const response = await wire.next();
    expect(response.result.isError).toBe(true);
    expect(response.result.content[0].text).toBe("Invalid arguments for tool 'echo': text: must be a string");
    wire.send(callAtDepth(3, 65));
    expect(await wire.next()).toEqual(depthError(3, 'tools/call'));
  });

  it('counts objects as well as arrays', async () => {
    const { wire } = await start();
    await handshake(wire);
    const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    wire.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":${objects(100_000)}}}}`,
    );
    expect(await wire.next()).toEqual(depthError(2, 'tools/call'));
    wire.send(
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":${objects(62)}}}}`,
    );
    expect((await wire.next()).result.content[0].text).toBe(
      "Invalid arguments for tool 'echo': text: must be a string",
    );
    wire.send(
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":${objects(63)}}}}`,
    );
    expect(await wire.next()).toEqual(depthError(4, 'tools/call'));
  });

  it('is the maxParamsDepth option', async () => {
    const { wire } = await start({ maxParamsDepth: 3 });
    await handshake(wire);
    wire.send(callAtDepth(2, 3));
    expect((await wire.next()).result.isError).toBe(true);
    wire.send(callAtDepth(3, 4));
    expect(await wire.next()).toEqual(depthError(3, 'tools/call', 3));
  });

  it('applies to every request of a 2025-03-26 batch', async () => {
    const { wire } = await start({ maxParamsDepth: 3 });
    await handshake(wire, '2025-03-26');
    wire.send(`[${callAtDepth(2, 4)},{"jsonrpc":"2.0","id":3,"method":"ping"}]`);
    expect(await wire.next()).toEqual([
      depthError(2, 'tools/call', 3),
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
  });

  it('is stack-safe at its largest setting, 1000: such params reach validation without overflow', async () => {
    const { wire, logger } = await start({ maxParamsDepth: 1000 });
    await handshake(wire);
    wire.send(callAtDepth(2, 1000));
    expect((await wire.next()).result.content[0].text).toBe(
      "Invalid arguments for tool 'echo': text: must be a string",
    );
    expect(logger.entries).toEqual([]);
  });

  it.each([0, -1, 1.5, Number.NaN, 1001, '64'])('refuses maxParamsDepth %p at create', async (value) => {
    await expect(createDualEraApp({ maxParamsDepth: value as number })).rejects.toThrow(
      `maxParamsDepth must be an integer from 1 to 1000, got ${String(value)}`,
    );
  });
});
