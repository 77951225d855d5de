// 2026-07-28 retired −32042 (URL elicitation required): a handler that throws
// UrlElicitationRequiredError answers a stateless client with an input_required URL elicitation,
// and the session era keeps its −32042.
import type { GantryApplication } from '@gantry/core';
import { createFeatureApp } from './fixtures/feature-app';
import { handshake, openWire, type Wire } from './support/wire';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
};

let app: GantryApplication;
let wire: Wire;

beforeEach(async () => {
  app = await createFeatureApp();
  wire = await openWire(app);
});
afterEach(() => app.close());

test('the thrown URL elicitations become input requests; the retry runs the handler again', async () => {
  wire.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'require_account', _meta: meta },
  });
  const first = await wire.next();
  expect(first.result).toEqual({
    resultType: 'input_required',
    inputRequests: {
      'url-1-1': {
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Connect your account first', url: 'https://example.com/connect' },
      },
    },
    requestState: expect.any(String),
    _meta: expect.any(Object),
  });
  wire.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: {
      name: 'require_account',
      inputResponses: { 'url-1-1': { action: 'accept' } },
      requestState: first.result.requestState,
      _meta: meta,
    },
  });
  // The handler still needs the account: another round, numbered on.
  const second = await wire.next();
  expect(Object.keys(second.result.inputRequests)).toEqual(['url-2-1']);
  expect(JSON.stringify(second)).not.toContain('-32042');
});

test('the session era still answers −32042', async () => {
  await handshake(wire);
  wire.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'require_account' } });
  expect((await wire.next()).error.code).toBe(-32042);
});
