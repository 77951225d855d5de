// @gantry/client tasks against a server nobody here wrote: the official reference server
// @modelcontextprotocol/server-everything (its 2025-11-25 task tool simulate-research-query,
// built on the official SDK's experimental tasks), spawned over stdio. The tool runs four stages
// of a second each and, when the query is ambiguous, asks the client to clarify through the
// tasks/result stream.
import { dirname, join } from 'node:path';
import { Client, StdioClientTransport } from '@gantry/client';

const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const TOOL = 'simulate-research-query';

let client: Client;
const asked: string[] = [];

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    stderr: 'pipe',
  });
  transport.stderr?.resume();
  client = new Client(
    { name: 'gantry-vs-everything', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', (params) => {
    asked.push(String(params.message));
    return { action: 'accept', content: { interpretation: 'the second one' } };
  });
  await client.connect(transport, { era: 'session' });
  // Its task tools are registered once the client is initialized: wait until they are listed.
  const deadline = Date.now() + 10_000;
  while (!(await client.listTools()).some((tool) => tool.name === TOOL)) {
    if (Date.now() > deadline) throw new Error(`${TOOL} never appeared in tools/list`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 30_000);

afterAll(async () => {
  await client?.close();
});

describe('the Gantry client against the official server-everything', () => {
  it('runs its research tool as a task, with status messages, to a result', async () => {
    expect(client.serverCapabilities?.tasks).toBeDefined();
    const task = await client.callTool(TOOL, { topic: 'tides' }, { task: true });
    expect(task.taskId).toBeDefined();
    const messages = new Set<string>();
    for await (const update of task) if (update.statusMessage) messages.add(update.statusMessage);
    const result = await task.result();
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('tides');
    expect([...messages].some((m) => /Gathering sources|Analyzing content/.test(m))).toBe(true);
    expect((await task.status())?.status).toBe('completed');
  }, 30_000);

  it('answers its clarification (input_required) with the client’s elicitation handler', async () => {
    const task = await client.callTool(TOOL, { topic: 'python', ambiguous: true }, { task: true });
    const result = await task.result();
    expect(asked.some((message) => message.includes('python'))).toBe(true);
    expect(JSON.stringify(result.content)).toContain('the second one');
  }, 30_000);

  it('cancels a running task', async () => {
    const task = await client.callTool(TOOL, { topic: 'cancelled research' }, { task: true });
    await task.cancel();
    await expect(task.result()).rejects.toThrow(/cancelled/);
    expect((await task.status())?.status).toBe('cancelled');
  }, 30_000);
});
