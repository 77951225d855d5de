import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Changes, eventually } from '@gantry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  McpError as SdkMcpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createFeatureApp } from './fixtures/feature-app';
import { SdkTransportBridge } from './support/sdk-bridge';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'feature-server.ts');

interface Harness {
  client: Client;
  seen: {
    logs: unknown[];
    updated: string[];
    toolsChanged: number;
    resourcesChanged: number;
    completed: string[];
  };
  /** Announces every change of `seen`. */
  changes: Changes;
  answers: { elicit: (params: any) => any; roots: { uri: string; name?: string }[] };
  close(): Promise<void>;
}

async function connect(mode: 'memory' | 'stdio', pageSize?: number): Promise<Harness> {
  const client = new Client(
    { name: 'sdk-features', version: '1.0.0' },
    {
      capabilities: {
        sampling: { tools: {} },
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true },
      },
    },
  );
  const seen: Harness['seen'] = {
    logs: [],
    updated: [],
    toolsChanged: 0,
    resourcesChanged: 0,
    completed: [],
  };
  const changes = new Changes();
  const answers: Harness['answers'] = {
    elicit: () => ({ action: 'accept', content: { name: 'Ada', colour: 'green', subscribe: true } }),
    roots: [{ uri: 'file:///work', name: 'work' }],
  };
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    if (request.params.tools) {
      return {
        role: 'assistant',
        model: 'test-model',
        stopReason: 'toolUse',
        content: [
          { type: 'tool_use', id: 'call-1', name: request.params.tools[0].name, input: { city: 'Paris' } },
        ],
      };
    }
    const first = request.params.messages[0].content as { text: string };
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `${first.text}? No.` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => answers.elicit(request.params));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: answers.roots }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.logs.push(n.params);
    changes.changed();
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.updated.push(n.params.uri);
    changes.changed();
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.toolsChanged++;
    changes.changed();
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    seen.resourcesChanged++;
    changes.changed();
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    seen.completed.push(n.params.elicitationId);
    changes.changed();
  });

  if (mode === 'memory') {
    const app = await createFeatureApp({ pageSize });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.connect(new SdkTransportBridge(serverSide));
    await client.connect(clientSide);
    return {
      client,
      seen,
      changes,
      answers,
      close: async () => {
        await client.close();
        await app.close();
      },
    };
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-r', REGISTER, SERVER, ...(pageSize ? [String(pageSize)] : [])],
    cwd: ROOT,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, seen, changes, answers, close: () => client.close() };
}

const text = (result: any): string => result.content[0].text;

describe.each(['memory', 'stdio'] as const)('the official SDK client against every feature (%s)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect(mode);
  }, 30_000);
  afterAll(async () => {
    await h.close();
  });

  it('sees the capabilities derived from what is registered', () => {
    expect(h.client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    });
  });

  it('lists static resources and what @ResourceList enumerates', async () => {
    const { resources } = await h.client.listResources();
    expect(resources.slice(0, 2)).toEqual([
      {
        uri: 'docs://readme',
        name: 'readme',
        title: 'Read me',
        description: 'About the docs',
        mimeType: 'text/markdown',
        size: 13,
        annotations: { audience: ['user'], priority: 0.5 },
      },
      { uri: 'docs://logo', name: 'logo', mimeType: 'image/png' },
    ]);
    expect(resources.slice(2).map((r) => r.uri)).toEqual([
      'docs://pages/intro',
      'docs://pages/install',
      'docs://pages/usage',
      'docs://pages/faq',
      'docs://pages/changelog',
    ]);
    expect(resources[2].mimeType).toBe('text/plain');
  });

  it('lists templates, most specific first', async () => {
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      { uriTemplate: 'docs://pages/{page}', name: 'page', description: 'One page', mimeType: 'text/plain' },
      { uriTemplate: 'file:///{+path}', name: 'file', description: 'Files by path' },
    ]);
  });

  it('reads text, binary and templated resources', async () => {
    expect((await h.client.readResource({ uri: 'docs://readme' })).contents).toEqual([
      { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Read me\n\nHi' },
    ]);
    expect((await h.client.readResource({ uri: 'docs://logo' })).contents).toEqual([
      { uri: 'docs://logo', mimeType: 'image/png', blob: 'iVBORw==' },
    ]);
    expect((await h.client.readResource({ uri: 'docs://pages/faq' })).contents).toEqual([
      { uri: 'docs://pages/faq', mimeType: 'text/plain', text: 'The faq page' },
    ]);
    expect((await h.client.readResource({ uri: 'file:///etc/hosts' })).contents).toEqual([
      { uri: 'file:///etc/hosts', mimeType: 'text/plain', text: 'contents of /etc/hosts' },
    ]);
  });

  it('answers an unknown resource with −32002 and the URI in data', async () => {
    const error = await h.client.readResource({ uri: 'docs://pages/missing' }).catch((e) => e);
    expect(error).toBeInstanceOf(SdkMcpError);
    expect(error.code).toBe(-32002);
    expect(error.data).toEqual({ uri: 'docs://pages/missing' });
    const unmatched = await h.client.readResource({ uri: 'nothing://here' }).catch((e) => e);
    expect([unmatched.code, unmatched.data]).toEqual([-32002, { uri: 'nothing://here' }]);
  });

  it('subscribes, gets resources/updated only for subscribed URIs, and unsubscribes', async () => {
    h.seen.updated.length = 0;
    await h.client.subscribeResource({ uri: 'docs://pages/faq' });
    await h.client.callTool({ name: 'touch', arguments: { uri: 'docs://readme' } });
    await h.client.callTool({ name: 'touch', arguments: { uri: 'docs://pages/faq' } });
    await h.changes.until(() => h.seen.updated.length > 0, { what: 'resources/updated' });
    expect(h.seen.updated).toEqual(['docs://pages/faq']);
    await h.client.unsubscribeResource({ uri: 'docs://pages/faq' });
    await h.client.callTool({ name: 'touch', arguments: { uri: 'docs://pages/faq' } });
    await h.client.ping();
    expect(h.seen.updated).toEqual(['docs://pages/faq']);
  });

  it('gets prompts with converted, validated arguments', async () => {
    const { prompts } = await h.client.listPrompts();
    expect(prompts[0]).toEqual({
      name: 'greet',
      title: 'Greeting',
      description: 'Greets someone',
      arguments: [
        { name: 'name', description: 'Who to greet', required: true },
        { name: 'language', description: 'Language code', required: false },
        { name: 'times', required: false },
      ],
    });
    expect(
      await h.client.getPrompt({ name: 'greet', arguments: { name: 'Ada', language: 'fr', times: '2' } }),
    ).toEqual({
      description: 'Greets someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Bonjour Ada!Bonjour Ada!' } }],
    });
    const invalid = await h.client
      .getPrompt({ name: 'greet', arguments: { name: 'Ada', times: 'many' } })
      .catch((e) => e);
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toBe(
      "MCP error -32602: Invalid arguments for prompt 'greet': times: must not be greater than 3; times: must not be less than 1; times: must be an integer number",
    );
  });

  it('gets a prompt with every kind of content', async () => {
    const result = await h.client.getPrompt({ name: 'rich' });
    expect(result.messages.map((m) => [m.role, m.content.type])).toEqual([
      ['assistant', 'text'],
      ['user', 'image'],
      ['user', 'audio'],
      ['user', 'resource'],
      ['user', 'resource_link'],
    ]);
  });

  it('completes prompt arguments (static and with context) and template variables', async () => {
    expect(
      (
        await h.client.complete({
          ref: { type: 'ref/prompt', name: 'greet' },
          argument: { name: 'language', value: 'f' },
        })
      ).completion,
    ).toEqual({
      values: ['fr'],
      total: 1,
    });
    const withContext = await h.client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'a' },
      context: { arguments: { language: 'fr' } },
    });
    expect(withContext.completion.values).toEqual(['Amélie', 'Antoine']);
    const page = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'docs://pages/{page}' },
      argument: { name: 'page', value: 'in' },
    });
    expect(page.completion).toEqual({ values: ['intro', 'install'], total: 2 });
  });

  it('sends log messages at or above the level set with logging/setLevel', async () => {
    h.seen.logs.length = 0;
    await h.client.setLoggingLevel('error');
    await h.client.callTool({ name: 'log_all' });
    await h.changes.until(() => h.seen.logs.length >= 4, { what: 'log messages' });
    expect(h.seen.logs).toEqual(
      ['error', 'critical', 'alert', 'emergency'].map((level) => ({
        level,
        logger: 'levels',
        data: `a ${level} message`,
      })),
    );
    await h.client.setLoggingLevel('debug');
  });

  it('reports progress to the caller', async () => {
    const progress: number[] = [];
    const result = await h.client.callTool(
      { name: 'count', arguments: { steps: 4, delayMs: 1 } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(text(result)).toBe('counted to 4');
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('cancels a call through an AbortSignal: the handler sees ctx.signal abort', async () => {
    const controller = new AbortController();
    const call = h.client.callTool(
      { name: 'count', arguments: { steps: 50, delayMs: 20 } },
      CallToolResultSchema,
      {
        signal: controller.signal,
        onprogress: (p) => {
          if (p.progress === 2) controller.abort('enough');
        },
      },
    );
    await expect(call).rejects.toThrow('enough');
    // The handler notices ctx.signal at its next step and records it in the server (maybe another
    // process), which announces nothing: poll what it recorded.
    let cancelled: string | undefined;
    await eventually(
      async () => {
        const events: string[] = JSON.parse(text(await h.client.callTool({ name: 'journal_events' })));
        cancelled = events.find((e) => e.startsWith('count cancelled'));
        return cancelled !== undefined;
      },
      { what: 'the handler to record its cancellation' },
    );
    expect(cancelled).toMatch(/^count cancelled at [2-4]$/);
  });

  it('samples through the client, with and without tools', async () => {
    expect(text(await h.client.callTool({ name: 'sample_joke', arguments: { topic: 'cats' } }))).toBe(
      'test-model: Tell a joke about cats? No.',
    );
    expect(JSON.parse(text(await h.client.callTool({ name: 'sample_with_tools' })))).toEqual({
      stopReason: 'toolUse',
      content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }],
    });
  });

  it('elicits a form built from a DTO and receives the validated DTO', async () => {
    let asked: any;
    h.answers.elicit = (params) => {
      asked = params;
      return { action: 'accept', content: { name: 'Ada', colour: 'green', subscribe: true } };
    };
    expect(text(await h.client.callTool({ name: 'ask_name' }))).toBe(
      'hello Ada (green, subscribe=true, NameForm)',
    );
    expect(asked).toEqual({
      mode: 'form',
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Your name' },
          colour: {
            type: 'string',
            oneOf: [
              { const: 'red', title: 'Red' },
              { const: 'green', title: 'Green' },
              { const: 'blue', title: 'Blue' },
            ],
          },
          subscribe: { type: 'boolean', default: false },
        },
        required: ['name'],
      },
    });
    h.answers.elicit = () => ({ action: 'decline' });
    expect(text(await h.client.callTool({ name: 'ask_name' }))).toBe('no answer: decline');
    h.answers.elicit = () => ({
      action: 'accept',
      content: { name: 'Ada', colour: 'purple', subscribe: true },
    });
    const invalid = await h.client.callTool({ name: 'ask_name' });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toBe(
      'The answer to the elicitation "Who are you?" is invalid: colour: must be one of the following values: red, green, blue',
    );
  });

  it('elicits in URL mode and completes the elicitation later', async () => {
    let asked: any;
    h.answers.elicit = (params) => {
      asked = params;
      return { action: 'accept' };
    };
    const answer = JSON.parse(text(await h.client.callTool({ name: 'connect_account' })));
    expect(answer.action).toBe('accept');
    expect(asked).toEqual({
      mode: 'url',
      message: 'Connect your example.com account',
      url: 'https://example.com/connect?state=abc',
      elicitationId: answer.elicitationId,
    });
    expect(
      text(
        await h.client.callTool({
          name: 'finish_connect',
          arguments: { elicitationId: answer.elicitationId },
        }),
      ),
    ).toBe('true');
    await h.changes.until(() => h.seen.completed.length > 0, { what: 'notifications/elicitation/complete' });
    expect(h.seen.completed).toEqual([answer.elicitationId]);
    expect(
      text(
        await h.client.callTool({
          name: 'finish_connect',
          arguments: { elicitationId: answer.elicitationId },
        }),
      ),
    ).toBe('false');
  });

  it('answers UrlElicitationRequiredError with −32042 and the elicitations', async () => {
    const error = await h.client.callTool({ name: 'require_account' }).catch((e) => e);
    expect(error.code).toBe(-32042);
    expect(error.data).toEqual({
      elicitations: [
        {
          mode: 'url',
          elicitationId: 'el-1',
          url: 'https://example.com/connect',
          message: 'Connect your account first',
        },
      ],
    });
  });

  it('lists roots, cached until roots/list_changed', async () => {
    expect(JSON.parse(text(await h.client.callTool({ name: 'list_roots' })))).toEqual([
      { uri: 'file:///work', name: 'work' },
    ]);
    h.answers.roots = [{ uri: 'file:///other' }];
    expect(JSON.parse(text(await h.client.callTool({ name: 'list_roots' })))).toEqual([
      { uri: 'file:///work', name: 'work' },
    ]);
    await h.client.sendRootsListChanged();
    await h.client.ping();
    expect(JSON.parse(text(await h.client.callTool({ name: 'list_roots' })))).toEqual([
      { uri: 'file:///other' },
    ]);
  });

  it('returns structured output that the SDK client validates against outputSchema', async () => {
    const { tools } = await h.client.listTools();
    const weather = tools.find((t) => t.name === 'weather')!;
    expect(weather.outputSchema).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' }, sky: { type: 'string' } },
      required: ['city', 'celsius', 'sky'],
      additionalProperties: false,
    });
    expect(weather.title).toBe('Weather');
    const result = await h.client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
    expect(result.structuredContent).toEqual({ city: 'Oslo', celsius: 21.5, sky: 'clear' });
    expect(JSON.parse(text(result))).toEqual({ city: 'Oslo', celsius: 21.5, sky: 'clear' });
    const bad = await h.client.callTool({ name: 'bad_output' }).catch((e) => e);
    expect(bad.code).toBe(-32603);
    expect(bad.message).toBe(
      "MCP error -32603: Internal error: tool 'bad_output' returned output that does not match its outputSchema: sky: is required; celsius: must be a number",
    );
  });

  it('sends tools/list_changed after a runtime change, and hides the disabled tool', async () => {
    const before = h.seen.toolsChanged;
    await h.client.callTool({ name: 'toggle_tool', arguments: { name: 'weather', enabled: false } });
    await h.changes.until(() => h.seen.toolsChanged > before, { what: 'tools/list_changed' });
    expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('weather');
    const call = await h.client.callTool({ name: 'weather', arguments: { city: 'x' } }).catch((e) => e);
    expect(call.code).toBe(-32602);
    await h.client.callTool({ name: 'toggle_tool', arguments: { name: 'weather', enabled: true } });
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('weather');
  });
});

describe.each(['memory', 'stdio'] as const)('pagination with a small page size (%s)', (mode) => {
  it('pages every list with opaque cursors', async () => {
    const h = await connect(mode, 2);
    try {
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await h.client.listTools(cursor ? { cursor } : {});
        expect(page.tools.length).toBeLessThanOrEqual(2);
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(names).toHaveLength(15);
      expect(new Set(names).size).toBe(15);
      expect(pages).toBe(8);
      const first = await h.client.listResources();
      expect(first.resources).toHaveLength(2);
      const second = await h.client.listResources({ cursor: first.nextCursor });
      expect(second.resources.map((r) => r.uri)).toEqual(['docs://pages/intro', 'docs://pages/install']);
      const prompts = await h.client.listPrompts();
      expect(prompts.prompts.map((p) => p.name)).toEqual(['greet', 'rich']);
      expect(prompts.nextCursor).toBeUndefined();
      const bad = await h.client.listPrompts({ cursor: 'nope' }).catch((e) => e);
      expect(bad.code).toBe(-32602);
    } finally {
      await h.close();
    }
  }, 30_000);
});

it('spawns the stdio fixture from the repository root', () => {
  // Guards the paths above: a moved fixture would otherwise fail every stdio test obscurely.
  const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(REGISTER)}); console.log('ok')`]);
  return new Promise<void>((done) =>
    child.on('exit', (code) => {
      expect(code).toBe(0);
      done();
    }),
  );
});
