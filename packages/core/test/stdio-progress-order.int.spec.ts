// The official SDK client over stdio, under CPU contention: every progress notification a tool
// sends reaches `onprogress` before the result. The SDK client handles a notification a
// microtask after the responses that came in the same read, and forgets a request's progress
// handler on its response (modelcontextprotocol/typescript-sdk#2580): progress that shares a
// read with the response is lost, and a loaded client reads many lines at once. The server
// pads such responses past one pipe read (`progressPaddingBytes`). Uses the built packages.
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'feature-server.ts');

/** Keeps this process's event loop busy, as a client under load is. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('progress before the result, with the official SDK client on a loaded machine', () => {
  const hogs: ChildProcess[] = [];
  let client: Client;
  const errors: string[] = [];

  beforeAll(async () => {
    // One busy loop per core: server and client compete for CPU with them.
    for (let i = 0; i < availableParallelism(); i++) {
      hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
    client = new Client({ name: 'sdk-progress', version: '1.0.0' });
    client.onerror = (error) => errors.push(error.message);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['-r', REGISTER, SERVER],
        stderr: 'inherit',
      }),
    );
  });

  afterAll(async () => {
    for (const hog of hogs) hog.kill();
    await client?.close();
  });

  it('delivers every progress value of every call before its result', async () => {
    for (let round = 0; round < 20; round++) {
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'count', arguments: { steps: 4, delayMs: 0 } },
        CallToolResultSchema,
        {
          onprogress: (p) => {
            progress.push(p.progress);
            // The client stops reading for a while: the server's remaining progress and its
            // result pile up in the pipe and are read together.
            if (p.progress === 2) stall(100);
          },
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'counted to 4' }]);
      expect(progress).toEqual([1, 2, 3, 4]);
    }
    expect(errors).toEqual([]);
  });
});
