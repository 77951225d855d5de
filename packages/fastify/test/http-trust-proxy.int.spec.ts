// The standalone http() listener behind a proxy, on a real loopback socket: with `trustProxy`
// naming the proxy, the client's address comes from X-Forwarded-For (ctx.remoteAddress, tool
// and transport rate limits by ip); without it, or from a peer that is not a trusted proxy, a
// forged X-Forwarded-For changes nothing.
import type { GantryApplication, GantryServerOptions } from '@gantry/core';
import { createAddressApp } from '../../core/test/fixtures/address-app';
import { type HttpListenerOptions, http } from '../src';
import { headersFor, rpc } from './stateless-support';

const open: GantryApplication[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((app) => app.close()));
});

async function serve(options: HttpListenerOptions, appOptions: Partial<GantryServerOptions> = {}) {
  const app = await createAddressApp('trust-proxy', appOptions);
  open.push(app);
  const listener = http({ port: 0, logger: false, onListening: () => {}, ...options });
  await app.listen(listener);
  return listener.url as string;
}

let nextId = 1;
async function call(url: string, name: string, forwardedFor?: string) {
  const body = rpc(nextId++, 'tools/call', { name });
  const extra: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(body, extra),
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const textOf = (answer: { body: any }) => answer.body.result.content[0].text;

it('reads the client from X-Forwarded-For when the peer is a trusted proxy', async () => {
  const url = await serve({ trustProxy: 'loopback' });
  expect(textOf(await call(url, 'where_from', '203.0.113.7'))).toBe('203.0.113.7');
  // A chain: the nearest address that is not a trusted proxy is the client.
  expect(textOf(await call(url, 'where_from', '198.51.100.1, 203.0.113.9'))).toBe('203.0.113.9');
  expect(textOf(await call(url, 'where_from'))).toBe('127.0.0.1');
});

it('limits by: ip per forwarded client, not per proxy', async () => {
  const url = await serve({ trustProxy: ['127.0.0.1/8', '::1'] });
  expect((await call(url, 'once', '203.0.113.7')).body.result.isError).toBeUndefined();
  // Another client behind the same proxy has a budget of its own...
  expect((await call(url, 'once', '198.51.100.9')).body.result.isError).toBeUndefined();
  // ...and the first one has spent its.
  const refused = await call(url, 'once', '203.0.113.7');
  expect(refused.body.result.isError).toBe(true);
  expect(refused.body.result._meta['io.gantry/retryAfterMs']).toBeGreaterThan(0);
});

it('keys the transport rate limit on the forwarded client: 429 for one, 200 for another', async () => {
  const url = await serve({ trustProxy: 'loopback', rateLimit: { points: 1, duration: 60 } });
  expect((await call(url, 'where_from', '203.0.113.7')).status).toBe(200);
  expect((await call(url, 'where_from', '203.0.113.7')).status).toBe(429);
  expect((await call(url, 'where_from', '198.51.100.9')).status).toBe(200);
});

it('counts the IPv6 clients of one /56 as one, and of another /56 apart', async () => {
  const url = await serve({ trustProxy: 'loopback' });
  expect((await call(url, 'once', '2001:db8:12:3456::1')).body.result.isError).toBeUndefined();
  // Another address of the same network: the budget is spent.
  expect((await call(url, 'once', '2001:db8:12:34ff::99')).body.result.isError).toBe(true);
  expect((await call(url, 'once', '2001:db8:12:3500::1')).body.result.isError).toBeUndefined();
  // An IPv4 client and its IPv4-mapped IPv6 spelling are one client.
  expect((await call(url, 'once', '203.0.113.7')).body.result.isError).toBeUndefined();
  expect((await call(url, 'once', '::ffff:203.0.113.7')).body.result.isError).toBe(true);
});

it('keys IPv6 by the prefix asked for: limits.ipv6Subnet and rateLimit.ipv6Subnet', async () => {
  const url = await serve(
    { trustProxy: 'loopback', rateLimit: { points: 1, duration: 60, ipv6Subnet: 128 } },
    { limits: { ipv6Subnet: 128 } },
  );
  expect((await call(url, 'once', '2001:db8::1')).body.result.isError).toBeUndefined();
  expect((await call(url, 'once', '2001:db8::2')).body.result.isError).toBeUndefined();
  // The transport's own limit, one POST per address: this is the second from 2001:db8::1.
  expect((await call(url, 'where_from', '2001:db8::1')).status).toBe(429);
  expect((await call(url, 'where_from', '2001:db8::3')).status).toBe(200);
});

it('refuses an ipv6Subnet out of range', async () => {
  await expect(serve({}, { limits: { ipv6Subnet: 0 } })).rejects.toThrow(
    'limits.ipv6Subnet must be a prefix length from 1 to 128, got 0',
  );
  await expect(serve({ rateLimit: { points: 1, duration: 1, ipv6Subnet: 200 } })).rejects.toThrow(
    'gantryMcp: rateLimit.ipv6Subnet must be a prefix length from 1 to 128, got 200',
  );
});

it.each([
  ['no trustProxy', {}],
  ['a proxy range the peer is not in', { trustProxy: '10.0.0.0/8' }],
  ['trustProxy: false', { trustProxy: false }],
] as const)('ignores a forged X-Forwarded-For with %s', async (_name, options) => {
  const url = await serve(options);
  expect(textOf(await call(url, 'where_from', '203.0.113.7'))).toBe('127.0.0.1');
  expect((await call(url, 'once', '203.0.113.7')).body.result.isError).toBeUndefined();
  // The forged address did not buy a budget of its own: the socket's is spent.
  expect((await call(url, 'once', '198.51.100.9')).body.result.isError).toBe(true);
});

it('refuses a hop count and malformed addresses when the listener is made', () => {
  expect(() => http({ trustProxy: 1 as never })).toThrow(
    /^http\(\): trustProxy cannot be a hop count \(1\).*name the proxies' addresses/,
  );
  expect(() => http({ trustProxy: 'loopback, not-an-address' })).toThrow(
    /^http\(\): trustProxy: invalid IP address: not-an-address$/,
  );
  expect(() => http({ trustProxy: { proxies: 'loopback' } as never })).toThrow(
    /^http\(\): trustProxy must be a boolean, addresses \(a string or an array of strings\) or a function, got object$/,
  );
});
