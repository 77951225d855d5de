import { createHash } from 'node:crypto';
import { principalOf } from '@gantry/protocol';
import { API_KEY_CHALLENGE, apiKeys, constantTimeEqual, isApiKeyAuth } from '../src';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef00';
const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);
const request = (headers: Record<string, string | string[]>, url = '/mcp') => ({ headers, url });

describe('constantTimeEqual', () => {
  it.each([
    ['equal strings', ALICE, ALICE, true],
    ['one character different', ALICE, `${ALICE.slice(0, -1)}x`, false],
    ['a prefix of the other', ALICE, ALICE.slice(0, 10), false],
    ['empty and non-empty', '', ALICE, false],
    ['two empty strings', '', '', true],
    ['non-ASCII text, equal', 'clé-🔑', 'clé-🔑', true],
  ])('%s → %s', (_name, a, b, expected) => {
    expect(constantTimeEqual(a, b)).toBe(expected);
  });
});

describe('apiKeys(): reading the keys', () => {
  it('takes a comma-separated string, as an environment variable holds it, trimming blanks', async () => {
    const auth = apiKeys({ keys: ` ${ALICE} , ,${BOB},` });
    for (const key of [ALICE, BOB]) {
      const outcome = await auth.authenticate(request({ authorization: `Bearer ${key}` }));
      expect(outcome).toEqual({
        ok: true,
        auth: { token: key, clientId: `apikey:${fingerprint(key)}`, scopes: [] },
      });
    }
  });

  it('takes a record of name → key, naming the principal', async () => {
    const auth = apiKeys({ keys: { alice: ALICE, bob: BOB } });
    const outcome = await auth.authenticate(request({ 'x-api-key': BOB }));
    expect(outcome).toEqual({ ok: true, auth: { token: BOB, clientId: 'apikey:bob', scopes: [] } });
  });

  it('takes entries with a name, scopes and extra, and namespaces the principal away from OAuth ones', async () => {
    const auth = apiKeys({
      keys: [{ key: ALICE, name: 'alice', scopes: ['notes:write'], extra: { team: 'a' } }],
    });
    const outcome = await auth.authenticate(request({ authorization: `bearer ${ALICE}` }));
    expect(outcome).toEqual({
      ok: true,
      auth: { token: ALICE, clientId: 'apikey:alice', scopes: ['notes:write'], extra: { team: 'a' } },
    });
    const principal = principalOf(outcome.ok ? outcome.auth : undefined);
    expect(principal).toBe('client:apikey:alice');
    expect(principal).not.toBe(principalOf({ token: 't', subject: 'alice', scopes: [] }));
    expect(principal).not.toBe(principalOf({ token: 't', clientId: 'alice', scopes: [] }));
  });

  it('gives keys sharing a name one principal (rotation)', async () => {
    const auth = apiKeys({
      keys: [
        { key: ALICE, name: 'ci' },
        { key: BOB, name: 'ci' },
      ],
    });
    const [a, b] = await Promise.all(
      [ALICE, BOB].map((key) => auth.authenticate(request({ 'x-api-key': key }))),
    );
    expect(a.ok && a.auth.clientId).toBe('apikey:ci');
    expect(b.ok && b.auth.clientId).toBe('apikey:ci');
  });

  it.each([
    [
      'undefined keys (an unset variable)',
      { keys: undefined },
      "'keys' is undefined and there is no 'verify'",
    ],
    ['an empty string', { keys: '' }, "'keys' lists no key"],
    ['only commas', { keys: ' , ,' }, "'keys' lists no key"],
    ['an empty array', { keys: [] }, "'keys' lists no key"],
    ['a short key', { keys: ['short-key'] }, 'keys[0] is 9 characters long; API keys need at least 16'],
    ['a short key in a string', { keys: `${ALICE},tiny` }, 'entry 2 is 4 characters long'],
    [
      'a key with a space',
      { keys: ['has a space in it, long enough'] },
      'keys[0]: a key must be a string of visible ASCII',
    ],
    ['a repeated key', { keys: [ALICE, ALICE] }, 'keys[1] repeats a key listed before it'],
    ['an unknown entry field', { keys: [{ key: ALICE, role: 'x' }] }, "keys[0] has unknown field 'role'"],
    ['bad scopes', { keys: [{ key: ALICE, scopes: 'a' }] }, "'scopes' must be an array"],
    ['an unknown option', { keys: ALICE, prefix: 'x' }, "unknown option 'prefix'"],
    ['a non-function verify', { verify: 'x' }, "'verify' must be a function"],
    [
      'Authorization as header',
      { keys: ALICE, header: 'Authorization' },
      "'header' must be a header name other than Authorization",
    ],
  ])('refuses %s with a TypeError naming it', (_name, options, message) => {
    expect(() => apiKeys(options as never)).toThrow(TypeError);
    expect(() => apiKeys(options as never)).toThrow(message);
  });

  it('never puts a key into its error messages', () => {
    const secret = 'tiny-secret';
    let message = '';
    try {
      apiKeys({ keys: [secret] });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('11 characters long');
    expect(message).not.toContain(secret);
  });

  it('is recognized by isApiKeyAuth, and an OAuth options object is not', () => {
    expect(isApiKeyAuth(apiKeys({ keys: ALICE }))).toBe(true);
    expect(isApiKeyAuth({ verify: () => undefined, metadata: {} })).toBe(false);
  });
});

describe('ApiKeyAuth.authenticate', () => {
  const auth = apiKeys({ keys: { alice: ALICE } });

  it('answers a request without a key with 401 and a realm challenge naming both headers', async () => {
    expect(await auth.authenticate(request({}))).toEqual({
      ok: false,
      status: 401,
      challenge: API_KEY_CHALLENGE,
      message:
        'Authentication required: send an API key as "Authorization: Bearer <key>" or "X-API-Key: <key>"',
    });
    expect(API_KEY_CHALLENGE).toBe('Bearer realm="mcp"');
  });

  it('answers an unknown key with 401 "Invalid API key", without the key', async () => {
    const outcome = await auth.authenticate(request({ authorization: `Bearer ${BOB}` }));
    expect(outcome).toEqual({
      ok: false,
      status: 401,
      challenge: API_KEY_CHALLENGE,
      message: 'Invalid API key: not recognized',
    });
  });

  it("looks past another scheme (a proxy's Basic) to the key header", async () => {
    const outcome = await auth.authenticate(
      request({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': ALICE }),
    );
    expect(outcome.ok).toBe(true);
  });

  it.each([
    ['a key in the query', { 'x-api-key': ALICE }, `/mcp?api_key=${ALICE}`, 'must not be sent in the URL'],
    ['an access_token in the query', {}, '/mcp?access_token=x', 'must not be sent in the URL'],
    ['Bearer without a key', { authorization: 'Bearer' }, '/mcp', 'malformed Authorization header'],
    [
      'two different keys',
      { authorization: `Bearer ${ALICE}`, 'x-api-key': BOB },
      '/mcp',
      'carry different keys',
    ],
    ['the key header twice', { 'x-api-key': [ALICE, ALICE] }, '/mcp', 'sent more than once'],
  ])('answers %s with 400', async (_name, headers, url, message) => {
    const outcome = await auth.authenticate(request(headers, url));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.status).toBe(400);
    expect(!outcome.ok && outcome.message).toContain(message);
  });

  it('accepts the same key in both headers', async () => {
    expect(
      (await auth.authenticate(request({ authorization: `Bearer ${ALICE}`, 'x-api-key': ALICE }))).ok,
    ).toBe(true);
  });

  it('reads a custom header instead of X-API-Key', async () => {
    const custom = apiKeys({ keys: ALICE, header: 'X-Notes-Key' });
    expect((await custom.authenticate(request({ 'x-notes-key': ALICE }))).ok).toBe(true);
    const refused = await custom.authenticate(request({ 'x-api-key': ALICE }));
    expect(!refused.ok && refused.message).toContain('"X-Notes-Key: <key>"');
  });

  it('asks verify for keys not in the list, and namespaces what it returns', async () => {
    const asked: string[] = [];
    const both = apiKeys({
      keys: { alice: ALICE },
      verify: (key, req) => {
        asked.push(`${key} ${req.url}`);
        return key === BOB ? { name: 'bob', scopes: ['a'] } : undefined;
      },
    });
    expect(await both.authenticate(request({ 'x-api-key': BOB }))).toEqual({
      ok: true,
      auth: { token: BOB, clientId: 'apikey:bob', scopes: ['a'] },
    });
    expect((await both.authenticate(request({ 'x-api-key': ALICE }))).ok).toBe(true);
    expect((await both.authenticate(request({ 'x-api-key': 'nobody-0123456789' }))).ok).toBe(false);
    expect(asked).toEqual([`${BOB} /mcp`, 'nobody-0123456789 /mcp']);
  });

  it('rejects when verify throws (a server failure, not a 401)', async () => {
    const failing = apiKeys({
      verify: () => {
        throw new Error('database down');
      },
    });
    await expect(failing.authenticate(request({ 'x-api-key': ALICE }))).rejects.toThrow('database down');
  });

  it("gives each request its own AuthInfo, so a handler cannot change the next caller's scopes", async () => {
    const scoped = apiKeys({ keys: [{ key: ALICE, name: 'a', scopes: ['x'] }] });
    const first = await scoped.authenticate(request({ 'x-api-key': ALICE }));
    if (first.ok) first.auth.scopes.push('admin');
    const second = await scoped.authenticate(request({ 'x-api-key': ALICE }));
    expect(second.ok && second.auth.scopes).toEqual(['x']);
  });
});
