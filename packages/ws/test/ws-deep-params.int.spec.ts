// Deeply nested params over WebSocket (literal text frames): refused with −32602 in both eras
// before any handler, validator or digest sees them, and the socket keeps serving.
import type { GantryApplication } from '@gantry/core';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { websocket } from '../src';
import { INITIALIZE, RawClient } from './support';

const STATELESS_META =
  '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);

function depthError(id: number, method: string) {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params: the params of ${method} nest deeper than 64 levels (the server's limit, maxParamsDepth)`,
      data: { maxParamsDepth: 64 },
    },
  };
}

let app: GantryApplication;
let client: RawClient;
const logged: string[] = [];

beforeEach(async () => {
  const record = (message: string) => void logged.push(message);
  app = await createDualEraApp({ logger: { debug: record, info: record, warn: record, error: record } });
  const listener = websocket({ port: 0 });
  await app.listen(listener);
  client = await RawClient.open(listener.url);
  logged.length = 0;
});

afterEach(async () => {
  client.close();
  await app.close();
});

it('session era: 100k-deep tools/call arguments answer −32602, then ping answers', async () => {
  client.sendText(INITIALIZE);
  await client.response(1);
  client.sendText(
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":${DEEP}}}}`,
  );
  expect(await client.response(2)).toEqual(depthError(2, 'tools/call'));
  client.sendText('{"jsonrpc":"2.0","id":3,"method":"ping"}');
  expect(await client.response(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  expect(logged).toEqual([]);
});

it('stateless era: a 100k-deep requestState retry answers −32602, then server/discover answers', async () => {
  client.sendText(
    `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"packing","arguments":{"city":${DEEP}},"requestState":"x.y","_meta":${STATELESS_META}}}`,
  );
  expect(await client.response(2)).toEqual(depthError(2, 'prompts/get'));
  client.sendText(`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":${STATELESS_META}}}`);
  expect(await client.response(3)).toMatchObject({ id: 3, result: { supportedVersions: ['2026-07-28'] } });
  expect(logged).toEqual([]);
});
