import type { GantryApplication } from '@gantry/core';
import { createEchoApp } from './support/echo-app';
import { handshake, INITIALIZE, openWire, type Wire } from './support/wire';

let app: GantryApplication;
let wire: Wire;

beforeEach(async () => {
  app = await createEchoApp();
  wire = await openWire(app);
});

afterEach(async () => {
  await app.close();
});

describe('initialize', () => {
  it('answers with the requested version, the derived capabilities and serverInfo', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: true }, logging: {} },
        serverInfo: { name: 'echo', version: '1.2.3' },
      },
    });
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    'accepts %s and echoes it',
    async (version) => {
      expect((await handshake(wire, version)).result.protocolVersion).toBe(version);
    },
  );

  it('accepts the pre-release 2024-10-07 and echoes it', async () => {
    expect((await handshake(wire, '2024-10-07')).result.protocolVersion).toBe('2024-10-07');
  });

  it('answers an unsupported version with our latest', async () => {
    expect((await handshake(wire, '2099-01-01')).result.protocolVersion).toBe('2025-11-25');
  });

  it('refuses initialize without protocolVersion with −32602', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Invalid params: initialize needs "protocolVersion" as a string' },
    });
  });

  it('refuses initialize without clientInfo with −32602', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params: initialize needs "clientInfo" with string "name" and "version"',
      },
    });
  });

  it('refuses a second initialize with −32600', async () => {
    await handshake(wire);
    wire.send(INITIALIZE);
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 0,
      error: {
        code: -32600,
        message: 'Invalid request: the session is already initialized; "initialize" may be sent only once',
      },
    });
  });

  it('refuses requests before initialize with −32600, but answers ping', async () => {
    wire.send('{"jsonrpc":"2.0","id":"a","method":"tools/list"}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: {
        code: -32600,
        message: 'Invalid request: "tools/list" was sent before initialization; send "initialize" first',
      },
    });
    wire.send('{"jsonrpc":"2.0","id":"b","method":"ping"}');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 'b', result: {} });
  });
});

describe('JSON-RPC error paths', () => {
  beforeEach(async () => {
    await handshake(wire);
  });

  it('answers malformed JSON with −32700 and id null, and stays usable', async () => {
    wire.send('{"jsonrpc":"2.0","id":1,"method":');
    const response = await wire.next();
    expect(response.id).toBeNull();
    expect(response.error.code).toBe(-32700);
    expect(response.error.message).toMatch(/^Parse error: /);
    wire.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('answers invalid UTF-8 with −32700', async () => {
    wire.send(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}}\n'),
      ]),
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the message is not valid UTF-8' },
    });
  });

  it.each([
    [
      'a JSON array that is not a batch',
      '[1]',
      null,
      'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
    ],
    ['a string', '"hello"', null, 'Invalid request: A JSON-RPC message must be a JSON object'],
    [
      'a wrong jsonrpc version',
      '{"jsonrpc":"1.0","id":3,"method":"ping"}',
      3,
      'Invalid request: The "jsonrpc" member must be exactly "2.0"',
    ],
    [
      'a numeric method',
      '{"jsonrpc":"2.0","id":4,"method":42}',
      4,
      'Invalid request: The "method" member must be a string',
    ],
    [
      'a null id',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}',
      null,
      'Invalid request: A request "id" must be a string or an integer (MCP forbids null)',
    ],
    [
      'a fractional id',
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      null,
      'Invalid request: A request "id" must be a string or an integer (MCP forbids null)',
    ],
    [
      'array params',
      '{"jsonrpc":"2.0","id":5,"method":"ping","params":[1]}',
      5,
      'Invalid request: The "params" of "ping" must be an object',
    ],
    [
      'no method, result or error',
      '{"jsonrpc":"2.0","id":6}',
      6,
      'Invalid request: The message is neither a request, a notification nor a response: it has no "method", "result" or "error"',
    ],
  ])('answers %s with −32600', async (_name, line, id, message) => {
    wire.send(line);
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message } });
  });

  it('answers an unknown method with −32601', async () => {
    wire.send('{"jsonrpc":"2.0","id":7,"method":"tools/dance"}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'Method not found: tools/dance', data: { method: 'tools/dance' } },
    });
  });

  it('answers tools/call without a name with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{}}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: {
        code: -32602,
        message: 'Invalid params: tools/call needs "name", the tool to call, as a string',
      },
    });
  });

  it('answers tools/call with array arguments with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":[1]}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32602,
        message: `Invalid params: the "arguments" of tools/call must be an object (tool 'echo')`,
      },
    });
  });

  it('answers an unknown tool with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 10,
      error: { code: -32602, message: 'Unknown tool: nope', data: { name: 'nope' } },
    });
  });

  it('answers an invalid cursor with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":"bogus"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 11,
      error: {
        code: -32602,
        message: 'Invalid cursor: "bogus" was not issued by this server or has expired',
        data: { cursor: 'bogus' },
      },
    });
  });

  it('never answers notifications, known or unknown', async () => {
    wire.send('{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}');
    wire.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}');
    wire.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(await wire.silentFor(150)).toBe(true);
  });

  it('ignores responses to ids it never used', async () => {
    wire.send('{"jsonrpc":"2.0","id":12345,"result":{}}');
    wire.send('{"jsonrpc":"2.0","id":12346,"error":{"code":-32000,"message":"x"}}');
    expect(await wire.silentFor(150)).toBe(true);
    wire.send('{"jsonrpc":"2.0","id":13,"method":"ping"}');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 13, result: {} });
  });

  it('skips blank lines and accepts CRLF line endings', async () => {
    wire.send('\n\r\n{"jsonrpc":"2.0","id":14,"method":"ping"}\r\n');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 14, result: {} });
  });

  it('reassembles a message split across chunks', async () => {
    wire.send(Buffer.from('{"jsonrpc":"2.0",'));
    wire.send(Buffer.from('"id":15,"method":"pi'));
    wire.send(Buffer.from('ng"}\n{"jsonrpc":"2.0","id":16,"method":"ping"}\n'));
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 15, result: {} });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 16, result: {} });
  });
});

describe('a line over the size limit', () => {
  it('is answered with −32600 naming the limit, and the connection stays usable', async () => {
    const small = await createEchoApp();
    const limited = await openWire(small, { maxLineBytes: 1024 });
    await handshake(limited);
    // Sent in pieces so that the limit trips before the newline arrives.
    limited.send(
      Buffer.from(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'x'.repeat(700)}`,
      ),
    );
    limited.send(Buffer.from(`${'y'.repeat(700)}"}}}\n`));
    expect(await limited.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Message too large: a line may hold at most 1024 bytes',
        data: { maxBytes: 1024 },
      },
    });
    limited.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    expect(await limited.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await small.close();
  });
});

describe('tools/call', () => {
  beforeEach(async () => {
    await handshake(wire);
  });

  it('maps a returned string to text content', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ab","times":2}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'abab' }] },
    });
  });

  it('applies property defaults', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ab"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'ab' }] },
    });
  });

  it('reports invalid arguments as a tool error naming each failing field', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":5,"times":9}}}',
    );
    const response = await wire.next();
    expect(response.result.isError).toBe(true);
    expect(response.result.content).toHaveLength(1);
    const text: string = response.result.content[0].text;
    expect(text).toMatch(/^Invalid arguments for tool 'echo': /);
    expect(text).toContain('text: must be a string');
    expect(text).toContain('times: must not be greater than 5');
  });

  it('reports missing arguments as a tool error', async () => {
    wire.send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}');
    const response = await wire.next();
    expect(response.result.isError).toBe(true);
    expect(response.result.content[0].text).toBe("Invalid arguments for tool 'echo': text: is required");
  });

  it('maps a thrown Error to isError with its message', async () => {
    wire.send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fail"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { content: [{ type: 'text', text: 'the disk is full' }], isError: true },
    });
  });

  it('maps a thrown McpError to a JSON-RPC error', async () => {
    wire.send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"forbidden","arguments":{}}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32001, message: 'Forbidden here', data: { reason: 'test' } },
    });
  });

  it('rejects arguments for a tool that takes none', async () => {
    wire.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fail","arguments":{"x":1}}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [
          {
            type: 'text',
            text: "Invalid arguments for tool 'fail': x: property x should not exist (this tool takes no arguments)",
          },
        ],
        isError: true,
      },
    });
  });

  it('drops the response of a cancelled call and aborts its handler', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"w"}}}',
    );
    // The handler reports progress once it runs and listens for the abort.
    expect(await wire.next()).toMatchObject({
      method: 'notifications/progress',
      params: { progressToken: 'w' },
    });
    wire.send(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"user"}}',
    );
    expect(await wire.silentFor(150)).toBe(true);
    wire.send('{"jsonrpc":"2.0","id":8,"method":"ping"}');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
  });
});

describe('batches', () => {
  it('are answered as a batch in a 2025-03-26 session', async () => {
    await handshake(wire, '2025-03-26');
    wire.send(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"nope"}]',
    );
    expect(await wire.next()).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32601, message: 'Method not found: nope', data: { method: 'nope' } },
      },
    ]);
  });

  it('are refused in a 2025-06-18 session with −32600', async () => {
    await handshake(wire, '2025-06-18');
    wire.send('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
      },
    });
  });

  it('must not be empty', async () => {
    await handshake(wire, '2025-03-26');
    wire.send('[]');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: a batch must not be empty' },
    });
  });
});
