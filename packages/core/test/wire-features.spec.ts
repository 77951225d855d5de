import type { GantryApplication } from '@gantry/core';
import { createFeatureApp } from './fixtures/feature-app';
import { handshake, openWire, type Wire } from './support/wire';

let app: GantryApplication;
let wire: Wire;

beforeEach(async () => {
  app = await createFeatureApp();
  wire = await openWire(app);
  await handshake(wire);
});

afterEach(async () => {
  await app.close();
});

describe('resources: error paths', () => {
  it('answers an unknown resource with −32002 and the URI in data', async () => {
    wire.send('{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docs://nope"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32002, message: 'Resource not found: docs://nope', data: { uri: 'docs://nope' } },
    });
  });

  it('answers a template match whose method returns nothing with −32002', async () => {
    wire.send('{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"docs://pages/nope"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32002,
        message: 'Resource not found: docs://pages/nope',
        data: { uri: 'docs://pages/nope' },
      },
    });
  });

  it('answers resources/read without a uri with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'Invalid params: resources/read needs "uri" as a string' },
    });
  });

  it('refuses to subscribe to a URI nothing serves', async () => {
    wire.send('{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"nothing://x"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32002, message: 'Resource not found: nothing://x', data: { uri: 'nothing://x' } },
    });
  });

  it('answers a bad resources/list cursor with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{"cursor":"cDE6OTk5"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: {
        code: -32602,
        message: 'Invalid cursor: "cDE6OTk5" was not issued by this server or has expired',
        data: { cursor: 'cDE6OTk5' },
      },
    });
  });
});

describe('prompts: error paths', () => {
  it('answers an unknown prompt with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Unknown prompt: nope', data: { name: 'nope' } },
    });
  });

  it('answers non-string prompt arguments with −32602', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet","arguments":{"name":42}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: "Invalid params: the arguments of prompt 'greet' must be an object of strings",
      },
    });
  });

  it('answers a missing required argument with −32602 naming it', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"language":"fr"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32602,
        message: "Invalid arguments for prompt 'greet': name: is required",
        data: { prompt: 'greet' },
      },
    });
  });

  it('answers an unknown argument with −32602', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"a","mood":"x"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32602,
        message: "Invalid arguments for prompt 'greet': mood: property mood should not exist",
        data: { prompt: 'greet' },
      },
    });
  });
});

describe('completion, logging and capabilities: error paths', () => {
  it('answers a completion with a bad ref with −32602', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":""}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params: completion/complete needs "ref" of type ref/prompt or ref/resource',
      },
    });
  });

  it('answers a completion for an argument without completer with no values', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"times","value":""}}}',
    );
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 2, result: { completion: { values: [] } } });
  });

  it('answers an unknown log level with −32602', async () => {
    wire.send('{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"verbose"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32602,
        message:
          'Invalid params: unknown log level "verbose"; use one of debug, info, notice, warning, error, critical, alert, emergency',
      },
    });
  });

  it('answers logging/setLevel with exactly {}', async () => {
    wire.send('{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"info"}}');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('tells the tool author when the client lacks sampling (a tool error, nothing sent to the client)', async () => {
    wire.send(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sample_joke","arguments":{"topic":"x"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: {
        content: [
          {
            type: 'text',
            text: 'ctx.sample(): the client (wire-test) did not declare the sampling capability, so it cannot sample for this server',
          },
        ],
        isError: true,
      },
    });
  });

  it('tells the tool author when the client lacks elicitation and roots', async () => {
    wire.send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask_name"}}');
    expect((await wire.next()).result.content[0].text).toBe(
      'ctx.elicit(): the client (wire-test) did not declare form elicitation (capability elicitation.form)',
    );
    wire.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"connect_account"}}');
    expect((await wire.next()).result.content[0].text).toBe(
      'ctx.elicitUrl(): the client (wire-test) did not declare URL elicitation (capability elicitation.url, 2025-11-25)',
    );
    wire.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_roots"}}');
    expect((await wire.next()).result.content[0].text).toBe(
      'ctx.roots(): the client (wire-test) did not declare the roots capability',
    );
  });
});

/** Replaces the connection with one whose client declared sampling. */
async function reopenWithSampling(): Promise<void> {
  await app.close();
  app = await createFeatureApp();
  wire = await openWire(app);
  wire.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { sampling: {} },
      clientInfo: { name: 'wire', version: '1' },
    },
  });
  await wire.next();
}

describe('server → client requests on the wire', () => {
  it('sends sampling/createMessage tied to the call, and answers the call with the client result', async () => {
    await reopenWithSampling();
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample_joke","arguments":{"topic":"owls"}}}',
    );
    const request = await wire.next();
    expect(request).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'Tell a joke about owls' } }],
        systemPrompt: 'You are funny.',
        modelPreferences: { hints: [{ name: 'claude' }], intelligencePriority: 0.2 },
        maxTokens: 50,
      },
    });
    wire.send({
      jsonrpc: '2.0',
      id: request.id,
      result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'Hoot.' } },
    });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'm: Hoot.' }] },
    });
  });

  it('turns the client refusing a sampling request into a tool error, not the call’s own error', async () => {
    await reopenWithSampling();
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample_joke","arguments":{"topic":"owls"}}}',
    );
    const request = await wire.next();
    wire.send({
      jsonrpc: '2.0',
      id: request.id,
      error: { code: -1, message: 'User rejected sampling request' },
    });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [
          {
            type: 'text',
            text: 'The client answered sampling/createMessage with error -1: User rejected sampling request',
          },
        ],
        isError: true,
      },
    });
  });

  it('refuses tools in sampling when the client lacks sampling.tools', async () => {
    await reopenWithSampling();
    wire.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample_with_tools"}}');
    expect((await wire.next()).result).toEqual({
      content: [
        {
          type: 'text',
          text: 'ctx.sample(): tools and toolChoice need the client capability sampling.tools (2025-11-25), which this client did not declare',
        },
      ],
      isError: true,
    });
  });
});
