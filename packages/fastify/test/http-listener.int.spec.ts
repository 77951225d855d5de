// The standalone `http()` listener: `app.listen(http(...))` serves the ConnectionHost it is
// handed on its own Fastify server, registered as `gantryMcp` registers itself, and
// `app.close()` ends it.
import 'reflect-metadata';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { http } from '../src';
import { headersFor, rpc, textResult } from './stateless-support';

describe('the http() listener', () => {
  it('serves both eras on the port it reports, and closes with the app', async () => {
    const app = await createDualEraApp();
    let reported: string | undefined;
    const listener = http({ port: 0, onListening: (url) => (reported = url) });
    await app.listen(listener);
    expect(reported).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(listener.url).toBe(reported);
    expect(listener.fastify?.hasPlugin('@gantry/fastify')).toBe(true);

    const body = rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'over http' } });
    const stateless = await fetch(listener.url as string, {
      method: 'POST',
      headers: headersFor(body),
      body: JSON.stringify(body),
    });
    expect(stateless.status).toBe(200);
    expect(await stateless.json()).toEqual(textResult(1, 'over http'));

    const initialize = await fetch(listener.url as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('mcp-session-id')).toEqual(expect.any(String));
    await initialize.body?.cancel();

    await app.close();
    await expect(fetch(listener.url as string, { method: 'OPTIONS' })).rejects.toThrow();
  });
});
