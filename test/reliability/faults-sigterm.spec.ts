// SIGTERM with calls in flight, on a server that called app.enableShutdownHooks(): each call in
// flight gets an answer or its connection ends cleanly (never half a message, never a hang),
// and the process ends by the signal, as a supervisor expects. The calls outlast the drain's
// grace (1 s here), so what is tested is what happens to calls the grace could not save.
import { startFixture } from './support/child-server';
import { HttpMcp } from './support/http-session';
import { eventually, StdioRpcClient, WsRpcClient } from './support/rpc-clients';

const SHUTDOWN_HOOKS = { REL_SHUTDOWN_HOOKS: '1', REL_SHUTDOWN_GRACE_MS: '1000' };
const IN_FLIGHT = 3;
const slowCall = { name: 'wait', arguments: { ms: 30_000 } };

/** Settles each call: its answer, or the error its connection ended with. */
const settleAll = (calls: Promise<unknown>[]) =>
  Promise.all(
    calls.map((call) =>
      call.then(
        (answer) => ({ answer }),
        (error: Error) => ({ error: error.message }),
      ),
    ),
  );

it('stdio: every line written is a whole message, the calls are answered or stdout ends, the exit is by SIGTERM', async () => {
  const { server } = await startFixture({ transport: 'stdio', env: SHUTDOWN_HOOKS });
  try {
    const client = new StdioRpcClient(server);
    await client.initialize();
    const ids = Array.from({ length: IN_FLIGHT }, (_, i) => `slow-${i}`);
    // Unanswered calls are allowed (a clean close); their client-side hang timers must not fail the test.
    for (const id of ids) client.request('tools/call', slowCall, id).catch(() => undefined);
    await eventually('all calls running', async () => (await client.stats()).waits.running === IN_FLIGHT);
    const stdoutEnded = new Promise<void>((resolve) => server.child.stdout.once('end', resolve));
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGTERM' });
    await stdoutEnded;
    expect(client.partial).toBe('');
    for (const response of client.received.filter((m) => ids.includes(m.id))) {
      expect(response).toEqual({
        jsonrpc: '2.0',
        id: response.id,
        ...('result' in response
          ? { result: expect.any(Object) }
          : { error: expect.objectContaining({ code: expect.any(Number), message: expect.any(String) }) }),
      });
    }
  } finally {
    await server.stop();
  }
});

it('Streamable HTTP: each POST in flight gets a response or its connection ends; the exit is by SIGTERM', async () => {
  const { server, url } = await startFixture({ transport: 'http', env: SHUTDOWN_HOOKS });
  const client = new HttpMcp(new URL(url));
  try {
    await client.initialize();
    const calls = Array.from({ length: IN_FLIGHT }, () => client.request('tools/call', slowCall));
    await eventually('all calls running', async () => (await client.stats()).waits.running === IN_FLIGHT);
    server.child.kill('SIGTERM');
    const outcomes = await settleAll(calls);
    expect(await server.exited).toEqual({ code: null, signal: 'SIGTERM' });
    for (const outcome of outcomes) {
      if ('answer' in outcome) expect(outcome.answer).toMatchObject({ jsonrpc: '2.0' });
      else expect(outcome.error).not.toMatch(/no answer within/);
    }
  } finally {
    client.close();
    await server.stop();
  }
});

it('WebSocket: each socket with calls in flight gets their answers or a close frame; the exit is by SIGTERM', async () => {
  const { server, url } = await startFixture({ transport: 'ws', env: SHUTDOWN_HOOKS });
  try {
    const client = await WsRpcClient.open(url);
    await client.initialize();
    const calls = Array.from({ length: IN_FLIGHT }, () =>
      client.request('tools/call', slowCall).catch((error: Error) => ({ error: error.message })),
    );
    await eventually('all calls running', async () => (await client.stats()).waits.running === IN_FLIGHT);
    server.child.kill('SIGTERM');
    // docs/websocket.md: 1001 "Server shutting down" when the app closes.
    expect(await client.closed).toBe(1001);
    expect(await server.exited).toEqual({ code: null, signal: 'SIGTERM' });
    void calls;
  } finally {
    await server.stop();
  }
});
