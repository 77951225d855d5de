// The test authorization server (fixtures/oauth-server.ts) with plain fetch, part two: client
// authentication at the token endpoint (client_secret_basic, client_secret_post,
// private_key_jwt with RS256 and ES256), Client ID Metadata Documents, and the protected Gantry
// MCP server (fixtures/protected-server.ts): 401 challenge, RFC 9728 metadata, a call with a
// token from the whole flow, the 403 step-up on `admin`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  authorize,
  basicAuth,
  clientAssertion,
  codeRequest,
  INITIALIZE,
  jwtParts,
  mcpPost,
  tokenRequest,
} from './fixtures/oauth-http';
import { generateSigningKey } from './fixtures/oauth-jwt';
import { type AuthServer, type AuthServerOptions, startAuthServer } from './fixtures/oauth-server';
import {
  type ProtectedServer,
  type ProtectedServerOptions,
  startProtectedServer,
} from './fixtures/protected-server';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(options: AuthServerOptions = {}): Promise<AuthServer> {
  const started = await startAuthServer(options);
  cleanups.push(() => started.close());
  return started;
}

async function protectedServer(options: ProtectedServerOptions): Promise<ProtectedServer> {
  const started = await startProtectedServer(options);
  cleanups.push(() => started.close());
  return started;
}

/** An id and a secret that form-urlencoding changes (RFC 6749 §2.3.1 encodes before base64). */
const BASIC_ID = 'basic:app +1';
const SECRET = 's3cr:t+/ é&=';

describe('token endpoint: client_credentials and client authentication', () => {
  const clients = [
    { clientId: BASIC_ID, clientSecret: SECRET },
    {
      clientId: 'post-app',
      clientSecret: 'post-secret',
      tokenEndpointAuthMethod: 'client_secret_post' as const,
    },
  ];

  it('authenticates client_secret_basic with the form-encoded id and secret', async () => {
    const as = await server({ preRegistered: clients });
    const answer = await tokenRequest(
      as,
      { grant_type: 'client_credentials', scope: 'mcp:read', resource: 'https://mcp.example.com/mcp' },
      basicAuth(BASIC_ID, SECRET),
    );
    expect(answer.status).toBe(200);
    expect(jwtParts(answer.body.access_token as string).claims).toMatchObject({
      sub: BASIC_ID,
      client_id: BASIC_ID,
      aud: 'https://mcp.example.com/mcp',
      scope: 'mcp:read',
    });
    expect(answer.body.refresh_token).toBeUndefined();
    expect(as.tokenRequests).toEqual([
      expect.objectContaining({
        grantType: 'client_credentials',
        authMethod: 'client_secret_basic',
        clientId: BASIC_ID,
        status: 200,
      }),
    ]);
  });

  it('refuses Basic credentials with a wrong or un-encoded secret: 401 invalid_client with WWW-Authenticate', async () => {
    const as = await server({ preRegistered: clients });
    const raw = `Basic ${Buffer.from(`${BASIC_ID}:${SECRET}`).toString('base64')}`;
    for (const authorization of [basicAuth(BASIC_ID, 'wrong'), raw, 'Basic !!!']) {
      const answer = await tokenRequest(as, { grant_type: 'client_credentials' }, authorization);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
      expect(answer.headers.get('www-authenticate')).toBe(`Basic realm="${as.issuer}"`);
    }
  });

  it('authenticates client_secret_post, and refuses a client that uses another method than its own', async () => {
    const as = await server({ preRegistered: clients });
    const post = await tokenRequest(as, {
      grant_type: 'client_credentials',
      client_id: 'post-app',
      client_secret: 'post-secret',
    });
    expect(post.status).toBe(200);
    expect(as.tokenRequests[0]?.authMethod).toBe('client_secret_post');
    const wrong = await tokenRequest(as, {
      grant_type: 'client_credentials',
      client_id: 'post-app',
      client_secret: 'nope',
    });
    expect([wrong.status, wrong.body.error, wrong.headers.get('www-authenticate')]).toEqual([
      401,
      'invalid_client',
      null,
    ]);
    const asBasic = await tokenRequest(
      as,
      { grant_type: 'client_credentials' },
      basicAuth('post-app', 'post-secret'),
    );
    expect(asBasic.body.error_description).toBe(
      'client post-app authenticates with client_secret_post, not client_secret_basic',
    );
    const basicAsPost = await tokenRequest(as, {
      grant_type: 'client_credentials',
      client_id: BASIC_ID,
      client_secret: SECRET,
    });
    expect(basicAsPost.status).toBe(401);
  });

  it('refuses two authentication methods at once (RFC 6749 §2.3), and client_credentials for a public client', async () => {
    const as = await server({
      preRegistered: [...clients, { clientId: 'public-app', redirectUris: ['http://127.0.0.1/cb'] }],
    });
    const both = await tokenRequest(
      as,
      { grant_type: 'client_credentials', client_id: 'post-app', client_secret: 'post-secret' },
      basicAuth('post-app', 'post-secret'),
    );
    expect([both.status, both.body.error]).toEqual([400, 'invalid_request']);
    const publicClient = await tokenRequest(as, {
      grant_type: 'client_credentials',
      client_id: 'public-app',
    });
    expect([publicClient.status, publicClient.body.error]).toEqual([400, 'unauthorized_client']);
  });

  it('runs the code flow for a confidential client registered by DCR, authenticated with Basic', async () => {
    const as = await server();
    const redirect = 'https://app.example.com/cb';
    const registered = await fetch(as.registrationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    });
    const { client_id: id, client_secret: secret } = (await registered.json()) as {
      client_id: string;
      client_secret: string;
    };
    const { params, verifier } = codeRequest(id, redirect);
    const { query } = await authorize(as, params);
    const form = {
      grant_type: 'authorization_code',
      code: query.code as string,
      redirect_uri: redirect,
      code_verifier: verifier,
    };
    const unauthenticated = await tokenRequest(as, { ...form, client_id: id });
    expect([unauthenticated.status, unauthenticated.body.error]).toEqual([401, 'invalid_client']);
    const answer = await tokenRequest(as, form, basicAuth(id, secret));
    expect(answer.status).toBe(200);
    const refreshed = await tokenRequest(
      as,
      { grant_type: 'refresh_token', refresh_token: answer.body.refresh_token as string },
      basicAuth(id, secret),
    );
    expect(refreshed.status).toBe(200);
  });

  describe('private_key_jwt (RFC 7523)', () => {
    const rsa = generateSigningKey('RS256');
    const ec = generateSigningKey('ES256');
    const stranger = generateSigningKey('RS256', rsa.kid);
    const options: AuthServerOptions = {
      tokenEndpointAuthMethods: ['private_key_jwt', 'client_secret_basic'],
      preRegistered: [
        { clientId: 'rsa-app', jwks: { keys: [rsa.publicJwk] } },
        { clientId: 'ec-app', publicKeyPem: ec.publicKeyPem },
      ],
    };
    const assertionForm = (assertion: string) => ({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });

    it('accepts RS256 (JWKS) and ES256 (PEM) assertions with aud = the issuer or the token endpoint', async () => {
      const as = await server(options);
      const rsaAnswer = await tokenRequest(as, assertionForm(clientAssertion(as, 'rsa-app', rsa)));
      expect(rsaAnswer.status).toBe(200);
      expect(jwtParts(rsaAnswer.body.access_token as string).claims.client_id).toBe('rsa-app');
      const ecAnswer = await tokenRequest(as, {
        ...assertionForm(clientAssertion(as, 'ec-app', ec, { aud: as.tokenEndpoint })),
        client_id: 'ec-app',
      });
      expect(ecAnswer.status).toBe(200);
      expect(as.tokenRequests.map((request) => [request.authMethod, request.clientId])).toEqual([
        ['private_key_jwt', 'rsa-app'],
        ['private_key_jwt', 'ec-app'],
      ]);
    });

    it.each([
      ['a replayed jti', 'jti was already used'],
      ['a key the client did not register', 'signature is invalid'],
      ['an expired assertion', 'client_assertion: expired'],
      ['another audience', 'audience does not match'],
      ['sub other than the client', 'iss and sub must both be the client_id'],
      ['no jti', 'jti is missing'],
      ['the wrong assertion type', 'client_assertion_type must be'],
    ])('refuses %s', async (label, description) => {
      const as = await server(options);
      const now = Math.floor(Date.now() / 1000);
      let form = assertionForm(clientAssertion(as, 'rsa-app', rsa));
      if (label === 'a replayed jti') expect((await tokenRequest(as, form)).status).toBe(200);
      if (label === 'a key the client did not register')
        form = assertionForm(clientAssertion(as, 'rsa-app', stranger));
      if (label === 'an expired assertion')
        form = assertionForm(clientAssertion(as, 'rsa-app', rsa, { exp: now - 5 }));
      if (label === 'another audience')
        form = assertionForm(clientAssertion(as, 'rsa-app', rsa, { aud: 'https://elsewhere.example.com' }));
      if (label === 'sub other than the client')
        form = assertionForm(clientAssertion(as, 'rsa-app', rsa, { sub: 'ec-app' }));
      if (label === 'no jti') form = assertionForm(clientAssertion(as, 'rsa-app', rsa, { jti: undefined }));
      if (label === 'the wrong assertion type') form = { ...form, client_assertion_type: 'jwt' };
      const answer = await tokenRequest(as, form);
      expect(answer.body.error_description).toContain(description);
      expect(answer.status).toBe(label === 'the wrong assertion type' ? 400 : 401);
    });
  });
});

/** Serves one Client ID Metadata Document on loopback; its URL is the client_id. */
async function metadataDocumentHost(
  document: (clientId: string) => object,
): Promise<{ clientId: string; hits: () => number }> {
  let hits = 0;
  let clientId = '';
  const host: Server = createServer((request, response) => {
    hits++;
    if (request.url !== '/oauth/client.json') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document(clientId)));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => host.close(resolve)));
  clientId = `http://127.0.0.1:${(host.address() as AddressInfo).port}/oauth/client.json`;
  return { clientId, hits: () => hits };
}

describe('Client ID Metadata Documents', () => {
  const REDIRECT = 'http://127.0.0.1:7777/callback';

  it('fetches the document named by a URL client_id and uses its redirect_uris and method', async () => {
    const as = await server({ cimd: true });
    const doc = await metadataDocumentHost((clientId) => ({
      client_id: clientId,
      client_name: 'CIMD app',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    }));
    const { params, verifier } = codeRequest(doc.clientId, REDIRECT);
    const { query } = await authorize(as, params);
    expect(query.code).toEqual(expect.any(String));
    const answer = await tokenRequest(as, {
      grant_type: 'authorization_code',
      code: query.code as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: doc.clientId,
    });
    expect(answer.status).toBe(200);
    expect(jwtParts(answer.body.access_token as string).claims.client_id).toBe(doc.clientId);
    expect(as.metadataDocumentFetches).toEqual([doc.clientId]);
    expect(doc.hits()).toBe(1);
    expect(as.clients).toEqual([
      expect.objectContaining({
        clientId: doc.clientId,
        source: 'metadata-document',
        redirectUris: [REDIRECT],
      }),
    ]);
    const elsewhere = await authorize(as, codeRequest(doc.clientId, 'http://127.0.0.1:7777/other').params);
    expect(elsewhere.status).toBe(400);
  });

  it('refuses a document whose client_id is not its URL, or that holds a secret', async () => {
    const as = await server({ cimd: true });
    const wrongId = await metadataDocumentHost(() => ({
      client_id: 'https://app.example.com/client.json',
      redirect_uris: [REDIRECT],
    }));
    const secret = await metadataDocumentHost((clientId) => ({
      client_id: clientId,
      redirect_uris: [REDIRECT],
      client_secret: 'x',
    }));
    for (const [doc, description] of [
      [wrongId, 'not http://'],
      [secret, 'must not hold a client_secret'],
    ] as const) {
      const answer = await authorize(as, codeRequest(doc.clientId, REDIRECT).params);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: 'invalid_client',
        error_description: expect.stringContaining(description),
      });
    }
  });

  it('authenticates a metadata document client with private_key_jwt, keys from the document', async () => {
    const key = generateSigningKey('ES256');
    const as = await server({ cimd: true, tokenEndpointAuthMethods: ['private_key_jwt', 'none'] });
    const doc = await metadataDocumentHost((clientId) => ({
      client_id: clientId,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
    }));
    const { params, verifier } = codeRequest(doc.clientId, REDIRECT);
    const { query } = await authorize(as, params);
    const form = {
      grant_type: 'authorization_code',
      code: query.code as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    };
    const { client_assertion_type: _type, ...unsignedForm } = form;
    const unsigned = await tokenRequest(as, { ...unsignedForm, client_id: doc.clientId });
    expect(unsigned.body.error_description).toBe(
      `client ${doc.clientId} authenticates with private_key_jwt, not none`,
    );
    const answer = await tokenRequest(as, {
      ...form,
      client_assertion: clientAssertion(as, doc.clientId, key),
    });
    expect(answer.status).toBe(200);
    expect(as.tokenRequests.map((request) => request.authMethod)).toEqual(['none', 'private_key_jwt']);
  });

  it('does not fetch a URL client_id when CIMD is off', async () => {
    const as = await server();
    const doc = await metadataDocumentHost((clientId) => ({
      client_id: clientId,
      redirect_uris: [REDIRECT],
    }));
    const answer = await authorize(as, codeRequest(doc.clientId, REDIRECT).params);
    expect(answer.body).toMatchObject({ error: 'invalid_client' });
    expect(doc.hits()).toBe(0);
  });
});

describe('protected Gantry MCP server', () => {
  const REDIRECT = 'http://127.0.0.1:7777/callback';

  /** The whole flow: DCR, authorize for the MCP server's resource, token with PKCE. */
  async function flowToken(as: AuthServer, resource: string, scope: string): Promise<string> {
    const registered = await fetch(as.registrationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const { params, verifier } = codeRequest(clientId, REDIRECT, { resource, scope });
    const { query } = await authorize(as, params);
    const answer = await tokenRequest(as, {
      grant_type: 'authorization_code',
      code: query.code as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      resource,
    });
    expect(answer.status).toBe(200);
    return answer.body.access_token as string;
  }

  /** initialize, then notifications/initialized; returns the session id. */
  async function openSession(mcp: ProtectedServer, token: string): Promise<string> {
    const opened = await mcpPost(mcp.url, INITIALIZE, token);
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') as string;
    expect(session).toEqual(expect.any(String));
    expect(
      (await mcpPost(mcp.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, token, session))
        .status,
    ).toBe(202);
    return session;
  }

  const call = (id: number, name: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {} },
  });

  it('answers 401 with resource_metadata and serves RFC 9728 metadata naming the authorization server', async () => {
    const as = await server();
    const mcp = await protectedServer({ authServer: as });
    const anonymous = await mcpPost(mcp.url, INITIALIZE);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer scope="mcp:read", resource_metadata="${mcp.resourceMetadataUrl}"`,
    );
    const metadata = await fetch(mcp.resourceMetadataUrl);
    expect(await metadata.json()).toEqual({
      resource: mcp.url,
      authorization_servers: [as.issuer],
      scopes_supported: ['mcp:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Protected test server',
    });
    expect(mcp.requests).toEqual([
      { method: 'POST', url: '/mcp', token: undefined },
      { method: 'GET', url: '/.well-known/oauth-protected-resource/mcp', token: undefined },
    ]);
  });

  it('serves whoami with a token from the whole flow, and steps up admin with a 403 insufficient_scope', async () => {
    const as = await server({ approve: () => ({ subject: 'alice' }) });
    const mcp = await protectedServer({ authServer: as });
    const token = await flowToken(as, mcp.url, 'mcp:read');
    const session = await openSession(mcp, token);
    const whoami = await mcpPost(mcp.url, call(2, 'whoami'), token, session);
    expect(whoami.status).toBe(200);
    const result = ((await whoami.json()) as { result: { content: { text: string }[] } }).result;
    expect(JSON.parse(result.content[0]?.text as string)).toEqual({
      subject: 'alice',
      clientId: as.clients[0]?.clientId,
      scopes: ['mcp:read'],
    });

    const admin = await mcpPost(mcp.url, call(3, 'admin'), token, session);
    expect(admin.status).toBe(403);
    expect(admin.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read mcp:admin", resource_metadata="${mcp.resourceMetadataUrl}"`,
    );

    const stepped = await flowToken(as, mcp.url, 'mcp:read mcp:admin');
    const granted = await mcpPost(mcp.url, call(4, 'admin'), stepped, session);
    expect(granted.status).toBe(200);
    expect(await granted.json()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: { content: [{ type: 'text', text: 'admin granted to alice' }] },
    });
    expect(mcp.accepted.map((auth) => auth.scopes.join(' '))).toEqual([
      'mcp:read',
      'mcp:read',
      'mcp:read',
      'mcp:read',
      'mcp:read mcp:admin',
    ]);
    expect(mcp.jwksFetches).toBe(1);
  });

  it('refuses tokens for another audience, expired, expired by the AS, or signed by another AS', async () => {
    const as = await server();
    const other = await server();
    const mcp = await protectedServer({ authServer: as });
    const cases: [string, string][] = [
      [
        as.issueToken({ scope: 'mcp:read', audience: 'https://other.example.com/mcp' }),
        'token audience does not match',
      ],
      [as.issueToken({ scope: 'mcp:read', audience: mcp.url, expiresIn: -10 }), 'token expired'],
      [other.issueToken({ scope: 'mcp:read', audience: mcp.url }), 'token signed with an unknown key'],
      ['not-a-jwt', 'token not a well-formed JWT (expected three base64url parts)'],
    ];
    for (const [token, reason] of cases) {
      const answer = await mcpPost(mcp.url, INITIALIZE, token);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain(
        `error="invalid_token", error_description="${reason}"`,
      );
    }
    const good = as.issueToken({ scope: 'mcp:read', audience: mcp.url });
    expect((await mcpPost(mcp.url, INITIALIZE, good)).status).toBe(200);
    as.expireAccessTokens();
    const expired = await mcpPost(mcp.url, INITIALIZE, good);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error_description="token expired"');
    expect(mcp.refused).toHaveLength(cases.length + 1);
  });

  it('answers 403 to a token without the required scope', async () => {
    const as = await server();
    const mcp = await protectedServer({ authServer: as, requiredScopes: ['mcp:read'] });
    const answer = await mcpPost(
      mcp.url,
      INITIALIZE,
      as.issueToken({ scope: 'mcp:admin', audience: mcp.url }),
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read", resource_metadata="${mcp.resourceMetadataUrl}"`,
    );
  });
});
