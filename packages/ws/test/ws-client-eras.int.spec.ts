// Gantry's client over WebSocket picks the stateless era by itself and answers input_required
// with the same handlers that answer session-era requests.

import { Client, WebSocketClientTransport } from '@gantry/client';
import type { GantryApplication } from '@gantry/core';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { websocket } from '../src';

let app: GantryApplication;
let url: string;

beforeAll(async () => {
  app = await createDualEraApp();
  const listener = websocket({ port: 0 });
  await app.listen(listener);
  url = listener.url;
});
afterAll(() => app.close());

function client(): Client {
  const c = new Client(
    { name: 'ws-eras', version: '1' },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  let asked = 0;
  c.setRequestHandler('elicitation/create', () =>
    ++asked === 1
      ? { action: 'accept', content: { name: 'Ada' } }
      : { action: 'accept', content: { confirm: true } },
  );
  c.setRequestHandler('sampling/createMessage', () => ({
    role: 'assistant',
    model: 'test',
    content: { type: 'text', text: 'Fjords!' },
  }));
  return c;
}

test.each([
  ['auto', 'stateless'],
  ['session', 'session'],
] as const)('era %s: plan_trip elicits twice and samples once, in the %s era', async (era, expected) => {
  const c = client();
  const transport = new WebSocketClientTransport({ url });
  await c.connect(transport, { era });
  expect(c.era).toBe(expected);
  expect(transport.eraCacheKey).toBe(`ws:${new URL(url).origin}/mcp`);
  const result = await c.callTool('plan_trip', { city: 'Oslo' });
  expect(result.content).toEqual([{ type: 'text', text: `Booked Oslo for Ada (${expected}): Fjords!` }]);
  await c.close();
});
