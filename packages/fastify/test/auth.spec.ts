import type { AuthInfo } from '@gantry/protocol';
import Fastify from 'fastify';
import {
  type AuthOptions,
  checkAuthOptions,
  InsufficientScopeError,
  InvalidTokenError,
  insufficientScopeOutcome,
  jwtVerifier,
  registerProtectedResourceMetadata,
} from '../src/auth';
import { authApp as appWith, bearer, METADATA, NOW as now, SERVER } from './fixtures/auth-app';

// jose stands in as a stub that counts loads: these paths must never need it.
const mockJose = { loads: 0 };
jest.mock('jose', () => {
  mockJose.loads++;
  return { createRemoteJWKSet: () => async () => undefined, jwtVerify: async () => ({ payload: {} }) };
});

const ISSUER = 'https://auth.example.com';
const HOUR = 3600;
const NO_TOKEN =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Authentication required: send an OAuth access token as \\"Authorization: Bearer <token>\\""}}';

/** Tokens of the in-memory verifier: what `verify` returns (or throws) for each. */
function memoryVerifier(): AuthOptions['verify'] {
  const base = { clientId: 'client-1', subject: 'alice', scopes: ['notes:read'] };
  const tokens: Record<string, () => AuthInfo | undefined> = {
    good: () => ({ token: 'good', ...base, expiresAt: now() + HOUR, resource: `${SERVER}/mcp` }),
    'no-resource': () => ({ token: 'no-resource', ...base }),
    'odd-case': () => ({ token: 'odd-case', ...base, resource: 'HTTP://LOCALHOST:80/mcp/' }),
    expired: () => ({ token: 'expired', ...base, expiresAt: now() - 1 }),
    'other-resource': () => ({ token: 'other-resource', ...base, resource: 'https://other.example.com/mcp' }),
    'read-only': () => ({ token: 'read-only', ...base, scopes: ['notes:read'] }),
    revoked: () => {
      throw new InvalidTokenError('token "revoked"\nby admin');
    },
    'needs-admin': () => {
      throw new InsufficientScopeError(['admin']);
    },
    broken: () => {
      throw new Error('token store is down');
    },
  };
  return (token) => tokens[token]?.();
}

const metadata = { authorizationServers: [ISSUER], scopesSupported: ['notes:read'] };

describe('a request to the MCP endpoint without a usable bearer token', () => {
  const app = appWith({ verify: memoryVerifier(), metadata, requiredScopes: ['notes:read'] });
  afterAll(() => app.close());

  it('401: no Authorization header gets the challenge with resource_metadata and scope, no error code', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer scope="notes:read", ${METADATA}`);
    expect(response.body).toBe(NO_TOKEN);
  });

  it('401: without requiredScopes the challenge has no scope', async () => {
    const plain = appWith({ verify: memoryVerifier(), metadata });
    const response = await plain.inject({ method: 'GET', url: '/mcp' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer ${METADATA}`);
    await plain.close();
  });

  it('401: another scheme (Basic) is no bearer token', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/mcp',
      headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer scope="notes:read", ${METADATA}`);
    expect(response.body).toBe(NO_TOKEN);
  });

  it('400: "Bearer" without a token, or with two, is a malformed header', async () => {
    for (const authorization of ['Bearer', 'Bearer a b']) {
      const response = await app.inject({ method: 'GET', url: '/mcp', headers: { authorization } });
      expect(response.statusCode).toBe(400);
      expect(response.headers['www-authenticate']).toBe(
        `Bearer error="invalid_request", error_description="malformed Authorization header; expected 'Bearer <token>'", ${METADATA}`,
      );
      expect(response.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: "Bad Request: malformed Authorization header; expected 'Bearer <token>'",
        },
      });
    }
  });

  it('400: a token in the query string is refused, even beside a valid header, and never verified', async () => {
    const verify = jest.fn(memoryVerifier());
    const spied = appWith({ verify, metadata, requiredScopes: ['notes:read'] });
    const response = await spied.inject({
      method: 'GET',
      url: '/mcp?access_token=good',
      headers: bearer('good'),
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="invalid_request", error_description="access tokens must not be sent in the query string; send them in the Authorization header", ${METADATA}`,
    );
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          'Bad Request: access tokens must not be sent in the query string; send them in the Authorization header',
      },
    });
    expect(verify).not.toHaveBeenCalled();
    await spied.close();
  });
});

describe('a request with a bearer token (in-memory verifier)', () => {
  const app = appWith({ verify: memoryVerifier(), metadata, requiredScopes: ['notes:read'] });
  afterAll(() => app.close());

  it('200: a valid token reaches the handler as AuthInfo', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('good') });
    expect(response.statusCode).toBe(200);
    const { auth } = response.json();
    expect(auth).toEqual({
      token: 'good',
      clientId: 'client-1',
      subject: 'alice',
      scopes: ['notes:read'],
      expiresAt: auth.expiresAt,
      resource: 'http://localhost/mcp',
    });
    expect(auth.expiresAt).toBeGreaterThan(now());
  });

  it('200: the scheme is case-insensitive', async () => {
    for (const authorization of ['bearer good', 'BEARER good']) {
      const response = await app.inject({ method: 'GET', url: '/mcp', headers: { authorization } });
      expect(response.statusCode).toBe(200);
    }
  });

  it('200: an audience differing only in scheme/host case, default port and trailing slash is this resource', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('odd-case') });
    expect(response.statusCode).toBe(200);
    expect(response.json().auth.resource).toBe('HTTP://LOCALHOST:80/mcp/');
  });

  it('200: a token whose verifier reports no audience is accepted (the verifier vouched for it)', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('no-resource') });
    expect(response.statusCode).toBe(200);
  });

  it('401: a token the verifier does not know', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('unknown') });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="token not recognized", scope="notes:read", ${METADATA}`,
    );
    expect(response.body).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Invalid access token: token not recognized"}}',
    );
  });

  it('401: InvalidTokenError carries its reason, made safe for the quoted header value', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('revoked') });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="token 'revoked'?by admin", scope="notes:read", ${METADATA}`,
    );
    expect(response.json().error).toEqual({
      code: -32000,
      message: 'Invalid access token: token "revoked"\nby admin',
    });
  });

  it('401: an expired token (expiresAt in the past)', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('expired') });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="token expired", scope="notes:read", ${METADATA}`,
    );
  });

  it('401: a token issued for another resource (RFC 8707 audience)', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('other-resource') });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="token was issued for another resource", scope="notes:read", ${METADATA}`,
    );
  });

  it('200: checkResource: false leaves the audience to the verifier', async () => {
    const lax = appWith({ verify: memoryVerifier(), metadata, checkResource: false });
    const response = await lax.inject({ method: 'GET', url: '/mcp', headers: bearer('other-resource') });
    expect(response.statusCode).toBe(200);
    await lax.close();
  });

  it('403: a token without a required scope gets insufficient_scope with every required scope', async () => {
    const strict = appWith({
      verify: memoryVerifier(),
      metadata,
      requiredScopes: ['notes:read', 'notes:write'],
    });
    const response = await strict.inject({ method: 'GET', url: '/mcp', headers: bearer('read-only') });
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="notes:read notes:write", ${METADATA}`,
    );
    expect(response.body).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Insufficient scope: the access token lacks \\"notes:write\\"; this server needs \\"notes:read notes:write\\""}}',
    );
    await strict.close();
  });

  it('403: verify may throw InsufficientScopeError; the challenge adds the server-wide scopes', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('needs-admin') });
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="notes:read admin", ${METADATA}`,
    );
    expect(response.json().error).toEqual({
      code: -32000,
      message: 'Insufficient scope: this request needs admin',
    });
  });

  it('500: any other error from verify is a server failure, not a challenge', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('broken') });
    expect(response.statusCode).toBe(500);
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.json().message).toBe('token store is down');
  });
});

describe('InsufficientScopeError thrown by a guard or handler', () => {
  const options = checkAuthOptions({ verify: () => undefined, metadata, requiredScopes: ['notes:read'] });
  const endpoint = {
    metadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    resourceUrl: 'https://mcp.example.com/mcp',
  };

  it('becomes a 403 step-up challenge naming all scopes the operation needs, once each', () => {
    const error = new InsufficientScopeError(
      ['notes:read', 'notes:delete'],
      'Deleting notes needs notes:delete',
    );
    expect(insufficientScopeOutcome(error, options, endpoint)).toEqual({
      ok: false,
      status: 403,
      headers: {
        'www-authenticate':
          'Bearer error="insufficient_scope", scope="notes:read notes:delete", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      },
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Deleting notes needs notes:delete' },
      },
    });
  });

  it('refuses scope lists that would break the header, when constructed', () => {
    expect(() => new InsufficientScopeError([])).toThrow(
      'InsufficientScopeError: requiredScopes must be a non-empty array of scope tokens (no spaces, quotes or backslashes); got []',
    );
    expect(() => new InsufficientScopeError(['a b'])).toThrow(
      'InsufficientScopeError: requiredScopes must be a non-empty array of scope tokens (no spaces, quotes or backslashes); got ["a b"]',
    );
  });
});

describe('the protected resource metadata (RFC 9728)', () => {
  const full = {
    authorizationServers: ['https://auth.example.com', 'https://backup-auth.example.com/tenant1'],
    scopesSupported: ['notes:read', 'notes:write'],
    resourceName: 'Notes',
    resourceDocumentation: 'https://docs.example.com/notes',
  };
  const derivedDocument =
    '{"resource":"http://mcp.example.com:8080/mcp","authorization_servers":["https://auth.example.com","https://backup-auth.example.com/tenant1"],"scopes_supported":["notes:read","notes:write"],"bearer_methods_supported":["header"],"resource_name":"Notes","resource_documentation":"https://docs.example.com/notes"}';

  it('is served at the path-suffixed and the root well-known URI, public and identical', async () => {
    const app = appWith({ verify: () => undefined, metadata: full });
    for (const url of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await app.inject({ method: 'GET', url, headers: { host: 'mcp.example.com:8080' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.body).toBe(derivedDocument);
    }
    await app.close();
  });

  it('names only what is configured, and the endpoint under the Host it was asked on', async () => {
    const app = appWith({ verify: () => undefined, metadata: { authorizationServers: [ISSUER] } });
    const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' });
    expect(response.body).toBe(
      '{"resource":"http://localhost/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"]}',
    );
    await app.close();
  });

  it('answers CORS preflights, echoing the requested headers', async () => {
    const app = appWith({ verify: () => undefined, metadata });
    const response = await app.inject({
      method: 'OPTIONS',
      url: '/.well-known/oauth-protected-resource/mcp',
      headers: {
        origin: 'https://inspector.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
    expect(response.headers['access-control-allow-headers']).toBe('mcp-protocol-version');
    await app.close();
  });

  it('with a configured resource: the document, the served path and the 401 all follow it, whatever the Host', async () => {
    const app = appWith({
      verify: memoryVerifier(),
      metadata: { authorizationServers: [ISSUER], resource: 'https://mcp.example.com/public/mcp' },
    });
    const document =
      '{"resource":"https://mcp.example.com/public/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"]}';
    for (const url of [
      '/.well-known/oauth-protected-resource/public/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await app.inject({ method: 'GET', url, headers: { host: '10.0.0.7:3000' } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(document);
    }
    expect(
      (await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).statusCode,
    ).toBe(404);

    const challenge = await app.inject({ method: 'GET', url: '/mcp', headers: { host: '10.0.0.7:3000' } });
    expect(challenge.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"',
    );
    // The audience check uses the configured resource too: a token for the Host-derived URL is refused.
    const good = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('good') });
    expect(good.statusCode).toBe(401);
    await app.close();
  });

  it('an endpoint at "/" is served at the root well-known URI only (RFC 9728 §3.1)', async () => {
    const app = appWith({ verify: memoryVerifier(), metadata: { authorizationServers: [ISSUER] } }, '/');
    const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    expect(response.json().resource).toBe('http://localhost');
    const challenge = await app.inject({ method: 'GET', url: '/' });
    expect(challenge.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"',
    );
    await app.close();
  });

  it('a second endpoint keeps the first root document and adds its own suffixed one', async () => {
    const app = appWith({ verify: () => undefined, metadata: { authorizationServers: [ISSUER] } });
    const other = checkAuthOptions({
      verify: () => undefined,
      metadata: { authorizationServers: ['https://other-auth.example.com'] },
    });
    registerProtectedResourceMetadata(app, other, '/admin/mcp');
    const root = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    expect(root.json()).toEqual({
      resource: 'http://localhost/mcp',
      authorization_servers: ['https://auth.example.com'],
      bearer_methods_supported: ['header'],
    });
    const admin = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/admin/mcp' });
    expect(admin.json()).toEqual({
      resource: 'http://localhost/admin/mcp',
      authorization_servers: ['https://other-auth.example.com'],
      bearer_methods_supported: ['header'],
    });
    await app.close();
  });

  it('refuses to register under a route prefix, where well-known URIs cannot live', async () => {
    const app = Fastify({ logger: false });
    const options = checkAuthOptions({ verify: () => undefined, metadata });
    let failure: unknown;
    await app.register(
      async (scope) => {
        try {
          registerProtectedResourceMetadata(scope, options, '/api/mcp');
        } catch (error) {
          failure = error;
        }
      },
      { prefix: '/api' },
    );
    await app.ready();
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toBe(
      'registerProtectedResourceMetadata: RFC 9728 metadata is served from the origin root, but this Fastify instance adds the prefix "/api" to its routes; call it on an instance without a prefix, passing the full MCP path',
    );
    await app.close();
  });

  it('400: a Host that cannot form a URL gets no document', async () => {
    const app = appWith({ verify: () => undefined, metadata });
    const response = await app.inject({
      method: 'GET',
      url: '/.well-known/oauth-protected-resource/mcp',
      headers: { host: 'evil.example.com"x' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('Bad Request: the Host header is missing or malformed');
    await app.close();
  });
});

describe('checkAuthOptions', () => {
  /** The message of the TypeError `run` throws. */
  function failure(run: () => unknown): string {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      return (error as Error).message;
    }
    throw new Error('expected a TypeError');
  }
  const verify = () => undefined;

  it('returns a copy with the defaults filled in', () => {
    const raw = { verify, metadata: { authorizationServers: [ISSUER] } };
    const checked = checkAuthOptions(raw);
    expect(checked).toEqual({
      verify: expect.any(Function),
      metadata: { authorizationServers: [ISSUER] },
      requiredScopes: [],
      checkResource: true,
    });
    raw.metadata.authorizationServers.push('https://late.example.com');
    expect(checked.metadata.authorizationServers).toEqual([ISSUER]);
  });

  it('keeps `this` for a verify method of a class', async () => {
    class TokenTable {
      readonly metadata = { authorizationServers: [ISSUER] };
      verify(token: string): AuthInfo | undefined {
        return this.lookup(token);
      }
      private lookup(token: string): AuthInfo | undefined {
        return token === 'good' ? { token, scopes: ['notes:read'] } : undefined;
      }
    }
    const checked = checkAuthOptions(new TokenTable());
    expect(await checked.verify('good', {} as never)).toEqual({ token: 'good', scopes: ['notes:read'] });
  });

  it.each([
    [
      'options that are not an object',
      null,
      "Invalid auth options: expected an object with 'verify' and 'metadata', got null",
    ],
    [
      'a misspelt option',
      { verify, metadata, requiredScope: ['x'] },
      "Invalid auth options: unknown option 'requiredScope'; expected one of verify, metadata, requiredScopes, checkResource",
    ],
    [
      'a verify that is not a function',
      { verify: 'jwt', metadata },
      'Invalid auth options: \'verify\' must be a function (token, request) => AuthInfo | undefined; for JWTs use jwtVerifier({ jwksUrl, audience }), got "jwt"',
    ],
    [
      'options without metadata',
      { verify },
      "Invalid auth options: 'metadata' must be an object with at least 'authorizationServers', got undefined",
    ],
    [
      'an empty authorizationServers',
      { verify, metadata: { authorizationServers: [] } },
      "Invalid auth options: 'metadata.authorizationServers' must list at least one authorization server issuer URL (RFC 9728 authorization_servers, required by MCP), got []",
    ],
    [
      'an issuer that is not a URL',
      { verify, metadata: { authorizationServers: ['auth.example.com'] } },
      'Invalid auth options: \'metadata.authorizationServers[0]\' must be an absolute http(s) URL without query or fragment (an issuer identifier, RFC 8414 §2), got "auth.example.com"',
    ],
    [
      'a misspelt metadata field',
      { verify, metadata: { ...metadata, scopes: ['x'] } },
      "Invalid auth options: unknown option 'metadata.scopes'; expected one of metadata.authorizationServers, metadata.scopesSupported, metadata.resource, metadata.resourceName, metadata.resourceDocumentation",
    ],
    [
      'scopesSupported as a string',
      { verify, metadata: { ...metadata, scopesSupported: 'notes:read' } },
      'Invalid auth options: \'metadata.scopesSupported\' must be an array of scope strings, got "notes:read"',
    ],
    [
      'a scope with a space',
      { verify, metadata, requiredScopes: ['notes:read', 'notes write'] },
      'Invalid auth options: \'requiredScopes[1]\' must be a scope token (printable ASCII without spaces, quotes or backslashes, RFC 6749 §3.3), got "notes write"',
    ],
    [
      'offline_access as a required scope',
      { verify, metadata, requiredScopes: ['offline_access'] },
      'Invalid auth options: \'requiredScopes[0]\' is "offline_access", which a resource server should neither advertise nor require (MCP 2026-07-28); remove it',
    ],
    [
      'a resource with a fragment',
      { verify, metadata: { ...metadata, resource: 'https://mcp.example.com/mcp#main' } },
      'Invalid auth options: \'metadata.resource\' must be the absolute http(s) URL of the MCP endpoint, without query or fragment (e.g. "https://mcp.example.com/mcp"), got "https://mcp.example.com/mcp#main"',
    ],
    [
      'an empty resourceName',
      { verify, metadata: { ...metadata, resourceName: '' } },
      'Invalid auth options: \'metadata.resourceName\' must be a non-empty string, got ""',
    ],
    [
      'a relative resourceDocumentation',
      { verify, metadata: { ...metadata, resourceDocumentation: 'docs' } },
      'Invalid auth options: \'metadata.resourceDocumentation\' must be an absolute http(s) URL, got "docs"',
    ],
    [
      'a checkResource that is not a boolean',
      { verify, metadata, checkResource: 'yes' },
      'Invalid auth options: \'checkResource\' must be a boolean, got "yes"',
    ],
  ])('refuses %s', (_case, options, message) => {
    expect(failure(() => checkAuthOptions(options))).toBe(message);
  });
});

describe('jose', () => {
  it('is loaded only when a jwtVerifier is created, not by the auth module or its challenges', () => {
    expect(mockJose.loads).toBe(0);
    jwtVerifier({ jwksUrl: 'https://auth.example.com/jwks', audience: 'https://mcp.example.com/mcp' });
    expect(mockJose.loads).toBe(1);
  });
});
