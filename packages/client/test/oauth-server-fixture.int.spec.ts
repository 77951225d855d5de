// The test authorization server (fixtures/oauth-server.ts) driven with plain fetch: discovery,
// Dynamic Client Registration, the authorization endpoint, the authorization_code grant with
// PKCE, refresh rotation. Client authentication, CIMD and the protected MCP server are in
// oauth-server-fixture-clients.int.spec.ts.

import { authorize, codeRequest, jwtParts, register, tokenRequest } from './fixtures/oauth-http';
import { verifyJwt } from './fixtures/oauth-jwt';
import { type AuthServer, type AuthServerOptions, startAuthServer } from './fixtures/oauth-server';

const REDIRECT = 'http://127.0.0.1:4321/callback';
const RESOURCE = 'https://mcp.example.com/mcp';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(options: AuthServerOptions = {}): Promise<AuthServer> {
  const started = await startAuthServer(options);
  cleanups.push(() => started.close());
  return started;
}

// JSON documents under test, read field by field.
type Json = Record<string, any>;

const json = async (url: string): Promise<{ status: number; body: Json }> => {
  const response = await fetch(url);
  return { status: response.status, body: response.status === 200 ? ((await response.json()) as Json) : {} };
};

/** A public client registered by DCR. */
async function publicClient(as: AuthServer): Promise<string> {
  const { status, body } = await register(as, {
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
  });
  expect(status).toBe(201);
  return body.client_id as string;
}

/** Runs authorize → token for a public client; returns the token response. */
async function codeFlow(as: AuthServer, clientId: string, extra: Record<string, string> = {}) {
  const { params, verifier } = codeRequest(clientId, REDIRECT, {
    resource: RESOURCE,
    scope: 'mcp:read',
    ...extra,
  });
  const { query } = await authorize(as, params);
  return tokenRequest(as, {
    grant_type: 'authorization_code',
    code: query.code as string,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    resource: RESOURCE,
  });
}

describe('test authorization server: discovery', () => {
  it('serves RFC 8414 metadata at the root for an issuer without a path, and no OpenID document', async () => {
    const as = await server();
    expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { status, body } = await json(`${as.url}/.well-known/oauth-authorization-server`);
    expect(status).toBe(200);
    expect(body).toEqual({
      issuer: as.issuer,
      authorization_endpoint: `${as.issuer}/authorize`,
      token_endpoint: `${as.issuer}/token`,
      registration_endpoint: `${as.issuer}/register`,
      jwks_uri: `${as.issuer}/jwks`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['mcp:read', 'mcp:admin'],
      authorization_response_iss_parameter_supported: true,
    });
    expect((await json(`${as.url}/.well-known/openid-configuration`)).status).toBe(404);
    expect(as.metadataRequests).toEqual([
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]);
  });

  it('puts a path-based issuer after the well-known suffix (RFC 8414 §3.1), and OpenID documents at both places', async () => {
    const as = await server({ issuerPath: '/tenant1', metadataAt: 'both' });
    expect(as.issuer).toBe(`${as.url}/tenant1`);
    const oauth = await json(`${as.url}/.well-known/oauth-authorization-server/tenant1`);
    expect(oauth.body.issuer).toBe(as.issuer);
    expect(oauth.body.token_endpoint).toBe(`${as.url}/tenant1/token`);
    expect(oauth.body.subject_types_supported).toBeUndefined();
    for (const url of [
      `${as.url}/.well-known/openid-configuration/tenant1`,
      `${as.url}/tenant1/.well-known/openid-configuration`,
    ]) {
      const openid = await json(url);
      expect(openid.status).toBe(200);
      expect(openid.body).toMatchObject({
        issuer: as.issuer,
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    expect((await json(`${as.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect(as.metadataUrls).toHaveLength(3);
  });

  it('serves only OpenID Connect Discovery when asked to', async () => {
    const as = await server({ issuerPath: '/t', metadataAt: 'openid' });
    expect((await json(`${as.url}/.well-known/oauth-authorization-server/t`)).status).toBe(404);
    expect((await json(`${as.url}/t/.well-known/openid-configuration`)).status).toBe(200);
  });

  it('advertises what its options say: no PKCE methods, offline_access, no registration, CIMD, private_key_jwt', async () => {
    const as = await server({
      pkceMethods: [],
      scopesSupported: ['mcp:read', 'offline_access'],
      registration: false,
      cimd: true,
      tokenEndpointAuthMethods: ['private_key_jwt', 'none'],
    });
    const { body } = await json(`${as.url}/.well-known/oauth-authorization-server`);
    expect(body.code_challenge_methods_supported).toBeUndefined();
    expect(body.scopes_supported).toEqual(['mcp:read', 'offline_access']);
    expect(body.registration_endpoint).toBeUndefined();
    expect(body.client_id_metadata_document_supported).toBe(true);
    expect(body.token_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    expect((await register(as, { redirect_uris: [REDIRECT] })).status).toBe(404);
  });

  it('refuses unknown options and a malformed issuerPath with errors naming them', async () => {
    await expect(startAuthServer({ issuer: 'x' } as AuthServerOptions)).rejects.toThrow(
      "unknown option 'issuer'",
    );
    await expect(startAuthServer({ issuerPath: 'tenant1' })).rejects.toThrow(
      "issuerPath 'tenant1' must be ''",
    );
  });

  it('serves its signing key as a JWKS that verifies its tokens', async () => {
    const as = await server({ signingAlgorithm: 'ES256' });
    const { body } = await json(as.jwksUri);
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(body.keys[0].d).toBeUndefined();
    const token = as.issueToken({ scope: 'mcp:read', audience: RESOURCE });
    expect(verifyJwt(token, body.keys, { issuer: as.issuer, audience: RESOURCE })).toMatchObject({
      scope: 'mcp:read',
      sub: 'user-1',
    });
    const other = await server({ signingAlgorithm: 'ES256' });
    expect(() => verifyJwt(other.issueToken(), body.keys)).toThrow('signed with an unknown key');
  });
});

describe('test authorization server: dynamic client registration (RFC 7591)', () => {
  it('registers a public client: a client_id, no secret, its metadata echoed', async () => {
    const as = await server();
    const before = Math.floor(Date.now() / 1000);
    const { status, body } = await register(as, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      client_name: 'CLI',
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      client_name: 'CLI',
    });
    expect(typeof body.client_id).toBe('string');
    expect(body.client_secret).toBeUndefined();
    expect(body.client_id_issued_at).toBeGreaterThanOrEqual(before);
    expect(as.clients).toEqual([
      expect.objectContaining({
        clientId: body.client_id,
        source: 'dynamic',
        tokenEndpointAuthMethod: 'none',
      }),
    ]);
  });

  it('gives a confidential client (client_secret_basic by default) a secret that never expires', async () => {
    const as = await server();
    const { status, body } = await register(as, { redirect_uris: ['https://app.example.com/cb'] });
    expect(status).toBe(201);
    expect(body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(body.client_secret).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/));
    expect(body.client_secret_expires_at).toBe(0);
  });

  it.each([
    [{ redirect_uris: ['http://app.example.com/cb'] }, 'invalid_redirect_uri', 'uses http off loopback'],
    [{ redirect_uris: ['https://app.example.com/cb#frag'] }, 'invalid_redirect_uri', 'has a fragment'],
    [{ redirect_uris: ['not a uri'] }, 'invalid_redirect_uri', 'not an absolute URI'],
    [{ grant_types: ['authorization_code'] }, 'invalid_redirect_uri', 'redirect_uris is required'],
    [
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
      "'private_key_jwt' is not supported",
    ],
    [
      { redirect_uris: [REDIRECT], grant_types: ['implicit'] },
      'invalid_client_metadata',
      "grant type 'implicit'",
    ],
    [
      { redirect_uris: [REDIRECT], response_types: ['token'] },
      'invalid_client_metadata',
      "only contain 'code'",
    ],
    [
      { token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] },
      'invalid_client_metadata',
      'needs a confidential client',
    ],
    [[REDIRECT], 'invalid_client_metadata', 'must be a JSON object'],
  ])('refuses %j with %s (RFC 7591 §3.2.2)', async (metadata, error, description) => {
    const as = await server();
    const { status, body } = await register(as, metadata);
    expect(status).toBe(400);
    expect(body.error).toBe(error);
    expect(body.error_description).toContain(description);
    expect(as.clients).toEqual([]);
  });

  it('refuses a body that is not JSON', async () => {
    const as = await server();
    const response = await fetch(as.registrationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
});

describe('test authorization server: authorization endpoint', () => {
  it('approves with a 302 carrying code, state and iss (RFC 9207), and records resource and scope', async () => {
    const as = await server();
    const clientId = await publicClient(as);
    const { params } = codeRequest(clientId, REDIRECT, { resource: RESOURCE, scope: 'mcp:read mcp:admin' });
    const answer = await authorize(as, params);
    expect(answer.status).toBe(302);
    expect(answer.location?.origin + (answer.location?.pathname ?? '')).toBe(REDIRECT);
    expect(answer.query).toEqual({ code: expect.any(String), state: params.state, iss: as.issuer });
    expect(as.authorizationRequests).toEqual([
      { params, outcome: 'approved', code: answer.query.code, location: answer.location?.href },
    ]);
    expect(as.authorizationRequests[0]?.params.resource).toBe(RESOURCE);
  });

  it('accepts a loopback redirect URI on another port (RFC 8252 §7.3), not another path or host', async () => {
    const as = await server();
    const clientId = await publicClient(as);
    expect(
      (await authorize(as, codeRequest(clientId, 'http://127.0.0.1:59999/callback').params)).status,
    ).toBe(302);
    for (const uri of [
      'http://127.0.0.1:59999/other',
      'http://[::1]:4321/callback',
      'https://127.0.0.1:4321/callback',
    ]) {
      const answer = await authorize(as, codeRequest(clientId, uri).params);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeUndefined();
      expect(answer.body).toEqual({
        error: 'invalid_request',
        error_description: expect.stringContaining('is not registered'),
      });
    }
  });

  it('answers 400 without redirecting for an unknown client (RFC 6749 §4.1.2.1)', async () => {
    const as = await server();
    const answer = await authorize(as, codeRequest('nobody', REDIRECT).params);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.body).toMatchObject({ error: 'invalid_client' });
  });

  it.each([
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request', 'code_challenge is required'],
    [
      'no code_challenge_method',
      { code_challenge_method: undefined },
      'invalid_request',
      'code_challenge_method must be S256',
    ],
    ['method plain', { code_challenge_method: 'plain' }, 'invalid_request', 'must be S256, not plain'],
    ['a short challenge', { code_challenge: 'short' }, 'invalid_request', '43–128'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type', 'not token'],
    ['an unknown scope', { scope: 'mcp:read write' }, 'invalid_scope', 'unknown scope write'],
    [
      'a resource with a fragment',
      { resource: 'https://mcp.example.com/mcp#x' },
      'invalid_target',
      'fragment',
    ],
  ])('redirects %s back with error %s, state and iss', async (_label, change, error, description) => {
    const as = await server();
    const clientId = await publicClient(as);
    const { params } = codeRequest(clientId, REDIRECT);
    const changed: Record<string, string> = { ...params };
    for (const [name, value] of Object.entries(change)) {
      if (value === undefined) delete changed[name];
      else changed[name] = value;
    }
    const answer = await authorize(as, changed);
    expect(answer.status).toBe(302);
    expect(answer.query).toEqual({
      error,
      error_description: expect.stringContaining(description),
      state: params.state,
      iss: as.issuer,
    });
    expect(as.authorizationRequests[0]).toMatchObject({ outcome: 'error', error });
  });

  it('sends error=access_denied when approve says no, and gives approve the request', async () => {
    const seen: unknown[] = [];
    const as = await server({
      approve: (request) => {
        seen.push({ clientId: request.client.clientId, scopes: request.scopes, resource: request.resource });
        return false;
      },
    });
    const clientId = await publicClient(as);
    const { params } = codeRequest(clientId, REDIRECT, { scope: 'mcp:read', resource: RESOURCE });
    const answer = await authorize(as, params);
    expect(answer.query).toMatchObject({ error: 'access_denied', state: params.state, iss: as.issuer });
    expect(answer.query.code).toBeUndefined();
    expect(seen).toEqual([{ clientId, scopes: ['mcp:read'], resource: RESOURCE }]);
    expect(as.authorizationRequests[0]?.outcome).toBe('denied');
  });

  it('knows offline_access only when scopesSupported lists it', async () => {
    const plain = await server();
    const refused = await authorize(
      plain,
      codeRequest(await publicClient(plain), REDIRECT, { scope: 'mcp:read offline_access' }).params,
    );
    expect(refused.query.error).toBe('invalid_scope');
    const offline = await server({ scopesSupported: ['mcp:read', 'offline_access'] });
    const { body } = await codeFlow(offline, await publicClient(offline), {
      scope: 'mcp:read offline_access',
    });
    expect(body.scope).toBe('mcp:read offline_access');
  });

  it('leaves scope out of a token response that grants none', async () => {
    const as = await server();
    const { status, body } = await codeFlow(as, await publicClient(as), { scope: '' });
    expect(status).toBe(200);
    expect(Object.keys(body)).not.toContain('scope');
    expect(jwtParts(body.access_token as string).claims.scope).toBe('');
  });

  it('refuses a resource other than the configured audience (RFC 8707 invalid_target)', async () => {
    const as = await server({ audience: RESOURCE });
    const clientId = await publicClient(as);
    const answer = await authorize(
      as,
      codeRequest(clientId, REDIRECT, { resource: 'https://other.example.com/mcp' }).params,
    );
    expect(answer.query.error).toBe('invalid_target');
  });
});

describe('test authorization server: authorization_code with PKCE, and refresh', () => {
  it('exchanges a code for an RFC 9068 JWT naming the resource, the subject, the scope and the client', async () => {
    const as = await server({ accessTokenTtlSeconds: 120, approve: () => ({ subject: 'alice' }) });
    const clientId = await publicClient(as);
    const { status, headers, body } = await codeFlow(as, clientId);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 120,
      scope: 'mcp:read',
      refresh_token: expect.any(String),
    });
    const { header, claims } = jwtParts(body.access_token as string);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: expect.any(String) });
    expect(claims).toEqual({
      iss: as.issuer,
      aud: RESOURCE,
      sub: 'alice',
      client_id: clientId,
      scope: 'mcp:read',
      iat: expect.any(Number),
      exp: (claims.iat as number) + 120,
      jti: expect.any(String),
    });
    expect(as.tokenRequests).toEqual([
      expect.objectContaining({ grantType: 'authorization_code', authMethod: 'none', clientId, status: 200 }),
    ]);
    expect(as.issuedTokens.map((token) => token.accessToken)).toEqual([body.access_token]);
  });

  it('refuses a wrong code_verifier with invalid_grant, and the code is spent', async () => {
    const as = await server();
    const clientId = await publicClient(as);
    const { params, verifier } = codeRequest(clientId, REDIRECT);
    const { query } = await authorize(as, params);
    const exchange = (code_verifier: string) =>
      tokenRequest(as, {
        grant_type: 'authorization_code',
        code: query.code as string,
        redirect_uri: REDIRECT,
        code_verifier,
        client_id: clientId,
      });
    const wrong = await exchange(`${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: 'code_verifier does not match code_challenge',
    });
    const again = await exchange(verifier);
    expect(again.body.error).toBe('invalid_grant');
    expect(again.body.error_description).toBe('authorization code was already used');
  });

  it('accepts a code once only, and only with the redirect_uri and resource of its request', async () => {
    const as = await server();
    const clientId = await publicClient(as);
    const attempt = async (change: Record<string, string | undefined>) => {
      const { params, verifier } = codeRequest(clientId, REDIRECT, { resource: RESOURCE });
      const { query } = await authorize(as, params);
      const form: Record<string, string> = {
        grant_type: 'authorization_code',
        code: query.code as string,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
        resource: RESOURCE,
      };
      for (const [name, value] of Object.entries(change)) {
        if (value === undefined) delete form[name];
        else form[name] = value;
      }
      return { first: await tokenRequest(as, form), replay: () => tokenRequest(as, form) };
    };
    const good = await attempt({});
    expect(good.first.status).toBe(200);
    const replayed = await good.replay();
    expect([replayed.status, replayed.body.error]).toEqual([400, 'invalid_grant']);
    // OAuth 2.1 §4.1.3: the replay revokes the tokens the code was exchanged for.
    expect(as.isExpired(jwtParts(good.first.body.access_token as string).claims.jti as string)).toBe(true);
    expect(
      (await attempt({ redirect_uri: 'http://127.0.0.1:4321/other' })).first.body.error_description,
    ).toBe('redirect_uri differs from the authorization request');
    expect((await attempt({ resource: 'https://other.example.com/mcp' })).first.body.error).toBe(
      'invalid_target',
    );
    expect((await attempt({ resource: undefined })).first.body.error).toBe('invalid_target');
    expect((await attempt({ code_verifier: undefined })).first.body.error).toBe('invalid_request');
    expect((await attempt({ code: 'forged' })).first.body.error).toBe('invalid_grant');
  });

  it('refuses an expired code', async () => {
    const as = await server({ codeTtlSeconds: 0 });
    const answer = await codeFlow(as, await publicClient(as));
    expect(answer.body).toEqual({ error: 'invalid_grant', error_description: 'authorization code expired' });
  });

  it('rotates refresh tokens: the new one works, the old one is invalid_grant', async () => {
    const as = await server();
    const clientId = await publicClient(as);
    const first = await codeFlow(as, clientId);
    const refresh = (token: unknown, extra: Record<string, string> = {}) =>
      tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: token as string,
        client_id: clientId,
        ...extra,
      });
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).toEqual(expect.any(String));
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect(jwtParts(second.body.access_token as string).claims).toMatchObject({
      aud: RESOURCE,
      scope: 'mcp:read',
      sub: 'user-1',
    });
    const reused = await refresh(first.body.refresh_token);
    expect([reused.status, reused.body.error]).toEqual([400, 'invalid_grant']);
    expect((await refresh(second.body.refresh_token, { scope: 'mcp:read mcp:admin' })).body.error).toBe(
      'invalid_scope',
    );
    expect((await refresh(second.body.refresh_token)).status).toBe(200);
    expect(as.tokenRequests.map((request) => request.grantType)).toEqual([
      'authorization_code',
      'refresh_token',
      'refresh_token',
      'refresh_token',
      'refresh_token',
    ]);
  });

  it('issues no refresh token when told not to, and revokeAll ends refresh tokens', async () => {
    const none = await server({ issueRefreshTokens: false });
    expect((await codeFlow(none, await publicClient(none))).body.refresh_token).toBeUndefined();
    const as = await server();
    const clientId = await publicClient(as);
    const { body } = await codeFlow(as, clientId);
    as.revokeAll();
    expect(as.isExpired(jwtParts(body.access_token as string).claims.jti as string)).toBe(true);
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token as string,
      client_id: clientId,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it.each([
    [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
    [{}, 400, 'invalid_request'],
    [{ grant_type: 'refresh_token', refresh_token: 'x' }, 401, 'invalid_client'],
  ])('answers %j with %i %s (RFC 6749 §5.2)', async (form, status, error) => {
    const as = await server();
    const answer = await tokenRequest(as, form as Record<string, string>);
    expect([answer.status, answer.body.error]).toEqual([status, error]);
  });

  it('refuses a token request that is not form-encoded, or repeats a parameter', async () => {
    const as = await server();
    const asJson = await fetch(as.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
    });
    expect([asJson.status, ((await asJson.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_request',
    ]);
    const repeated = await fetch(as.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&grant_type=password',
    });
    expect(await repeated.json()).toEqual({
      error: 'invalid_request',
      error_description: 'parameter grant_type is repeated',
    });
  });
});
