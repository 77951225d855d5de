import { parseWwwAuthenticate, storeKeyFor } from '@gantry/client';
import { chooseAuthMethod } from '../src/auth/client-authentication';
import { canonicalResource } from '../src/auth/discovery';
import { checkTransportSecurity, isLoopbackHttp } from '../src/auth/insecure-http';

describe('parseWwwAuthenticate (RFC 9110 §11.6.1)', () => {
  it('reads a Bearer challenge with quoted and token values, names lower-cased', () => {
    expect(
      parseWwwAuthenticate(
        'Bearer realm="mcp", Error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'mcp',
          error: 'insufficient_scope',
          scope: 'a b',
          resource_metadata: 'https://x/.well-known/oauth-protected-resource/mcp',
        },
      },
    ]);
  });

  it('splits several challenges in one header, token68 included', () => {
    expect(parseWwwAuthenticate('Negotiate abc==, Basic realm="r", Bearer error=invalid_token')).toEqual([
      { scheme: 'negotiate', params: { '': 'abc==' } },
      { scheme: 'basic', params: { realm: 'r' } },
      { scheme: 'bearer', params: { error: 'invalid_token' } },
    ]);
  });

  it('unescapes quoted-pairs and keeps commas inside quotes', () => {
    expect(parseWwwAuthenticate('Bearer error_description="a \\"b\\", c"')[0].params.error_description).toBe(
      'a "b", c',
    );
  });

  it('keeps the first of a repeated parameter, and survives junk', () => {
    expect(parseWwwAuthenticate('Bearer scope="a", scope="b"')[0].params.scope).toBe('a');
    expect(parseWwwAuthenticate('Bearer scope="unterminated')).toEqual([{ scheme: 'bearer', params: {} }]);
    expect(parseWwwAuthenticate(', , "x", Bearer')).toEqual([{ scheme: 'bearer', params: {} }]);
    expect(parseWwwAuthenticate('')).toEqual([]);
    expect(parseWwwAuthenticate(null)).toEqual([]);
  });
});

describe('storeKeyFor', () => {
  it('normalises scheme, host, default port and trailing slash; drops query and fragment', () => {
    expect(storeKeyFor('HTTPS://Example.COM:443/mcp/?x=1#f')).toBe('https://example.com/mcp');
    expect(storeKeyFor('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000/');
    expect(storeKeyFor('http://127.0.0.1:3000/a//')).toBe('http://127.0.0.1:3000/a');
  });
});

describe('canonicalResource (MCP 2025-11-25 §Canonical Server URI)', () => {
  it('drops query, fragment and a bare trailing slash', () => {
    expect(canonicalResource(new URL('https://mcp.example.com/mcp?x#y'))).toBe('https://mcp.example.com/mcp');
    expect(canonicalResource(new URL('https://mcp.example.com/'))).toBe('https://mcp.example.com');
  });
});

describe('loopback HTTP (exact address parsing)', () => {
  it.each([
    ['http://localhost:1/x', true],
    ['http://127.0.0.1/x', true],
    ['http://127.200.3.4/x', true],
    ['http://[::1]:8080/x', true],
    ['http://localhost.evil.example/x', false],
    ['http://127.0.0.1.evil.example/x', false],
    ['http://128.0.0.1/x', false],
    ['http://[::ffff:127.0.0.1]/x', false],
    ['https://127.0.0.1/x', false],
  ])('%s → %s', (url, expected) => {
    expect(isLoopbackHttp(new URL(url))).toBe(expected);
  });

  it('refuses plain HTTP elsewhere, naming the fix', () => {
    expect(() =>
      checkTransportSecurity(new URL('http://as.example/token'), 'The token endpoint', false),
    ).toThrow(/The token endpoint http:\/\/as\.example\/token is not HTTPS.*allowInsecureHttp/);
    expect(() => checkTransportSecurity(new URL('http://as.example/token'), 'x', true)).not.toThrow();
  });
});

describe('chooseAuthMethod', () => {
  it('prefers the registration, then what the server lists and the credentials allow', () => {
    const secret = { secret: true, privateKey: false };
    expect(chooseAuthMethod(undefined, secret)).toBe('client_secret_basic');
    expect(chooseAuthMethod(['client_secret_post'], secret)).toBe('client_secret_post');
    expect(
      chooseAuthMethod(['client_secret_basic', 'client_secret_post'], secret, 'client_secret_post'),
    ).toBe('client_secret_post');
    expect(chooseAuthMethod(['none'], { secret: false, privateKey: false })).toBe('none');
    expect(chooseAuthMethod(['private_key_jwt'], { secret: false, privateKey: true })).toBe(
      'private_key_jwt',
    );
    expect(() => chooseAuthMethod(['private_key_jwt'], secret)).toThrow(
      /accepts private_key_jwt at its token endpoint, and this client has a client secret/,
    );
  });
});
