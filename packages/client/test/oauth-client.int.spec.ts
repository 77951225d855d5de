/** @jest-environment ./packages/client/test/fixtures/oauth-environment.ts */
// The OAuth client end to end: a real authorization server (fixtures/oauth-server.ts) and a real
// Gantry server protecting its tools with it (fixtures/protected-server.ts), on loopback sockets.
import {
  AuthorizationError,
  type AuthRecord,
  Client,
  clientCredentials,
  connectHttp,
  HttpStatusError,
  headlessInteraction,
  type McpAuth,
  oauth,
  type TokenStore,
  WebSocketClientTransport,
} from '@gantry/client';
import { generateSigningKey } from './fixtures/oauth-jwt';
import { type AuthServer, type AuthServerOptions, startAuthServer } from './fixtures/oauth-server';
import {
  type ProtectedServer,
  type ProtectedServerOptions,
  startProtectedServer,
} from './fixtures/protected-server';

// oauth4webapi is ESM-only and Jest cannot require it on Node 20: see fixtures/oauth-environment.ts.
jest.mock('oauth4webapi', () => jest.requireActual('./fixtures/real-oauth4webapi').realOauth4webapi);

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setUp(
  serverOptions: AuthServerOptions = {},
  protectedOptions: Omit<ProtectedServerOptions, 'authServer'> = {},
): Promise<{ as: AuthServer; mcp: ProtectedServer }> {
  const as = await startAuthServer(serverOptions);
  cleanups.push(() => as.close());
  const mcp = await startProtectedServer({ authServer: as, ...protectedOptions });
  cleanups.push(() => mcp.close());
  return { as, mcp };
}

function recordingStore(): TokenStore & { records: Map<string, AuthRecord> } {
  const records = new Map<string, AuthRecord>();
  return {
    records,
    load: async (key) => records.get(key),
    save: async (key, record) => {
      records.set(key, structuredClone(record));
    },
    delete: async (key) => {
      records.delete(key);
    },
    keys: async () => [...records.keys()],
  };
}

async function connected(url: string, auth: McpAuth): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await connectHttp(client, url, { auth });
  cleanups.push(() => client.close());
  return client;
}

function whoami(result: { structuredContent?: unknown; content: unknown[] }): {
  subject?: string;
  clientId?: string;
  scopes?: string[];
} {
  const first = result.content[0] as { text: string };
  return (result.structuredContent as object | undefined) ?? JSON.parse(first.text);
}

describe('oauth(): authorization code with PKCE', () => {
  it('registers, authorizes with S256 and resource, and calls tools with the token', async () => {
    const { as, mcp } = await setUp();
    const client = await connected(mcp.url, oauth({ interaction: headlessInteraction() }));

    const me = whoami(await client.callTool('whoami', {}));
    expect(me.subject).toBe('user-1');
    expect(me.scopes).toEqual(['mcp:read']);

    expect(as.clients).toHaveLength(1);
    const [authorization] = as.authorizationRequests;
    expect(authorization.outcome).toBe('approved');
    expect(authorization.params).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: mcp.url,
      scope: 'mcp:read',
      client_id: as.clients[0].clientId,
    });
    expect(authorization.params.state).toMatch(/.{16,}/);
    const codeExchange = as.tokenRequests.find((request) => request.grantType === 'authorization_code');
    expect(codeExchange?.status).toBe(200);
    expect(codeExchange?.params.resource).toBe(mcp.url);
    expect(codeExchange?.params.code_verifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/);
    // One flow for the whole connection, every later request carried the token.
    expect(as.authorizationRequests).toHaveLength(1);
    expect(mcp.refused).toEqual([]);
  });

  it('steps up on 403 insufficient_scope with the union of scopes, once', async () => {
    const { as, mcp } = await setUp();
    const client = await connected(mcp.url, oauth({ interaction: headlessInteraction() }));

    const result = await client.callTool('admin', {});
    expect(result.isError).not.toBe(true);
    expect(as.authorizationRequests.map((request) => request.params.scope)).toEqual([
      'mcp:read',
      'mcp:read mcp:admin',
    ]);
    // The stepped-up token serves the next calls without another flow.
    await client.callTool('admin', {});
    expect(as.authorizationRequests).toHaveLength(2);
  });

  it('refreshes an expired access token with the refresh token, keeping the registration', async () => {
    const { as, mcp } = await setUp({ scopesSupported: ['mcp:read', 'mcp:admin', 'offline_access'] });
    const store = recordingStore();
    const client = await connected(mcp.url, oauth({ interaction: headlessInteraction(), store }));
    await client.callTool('whoami', {});
    expect(as.authorizationRequests[0].params.scope).toBe('mcp:read offline_access');

    as.expireAccessTokens();
    await client.callTool('whoami', {});

    expect(as.tokenRequests.map((request) => request.grantType)).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
    expect(as.tokenRequests[1].params.resource).toBe(mcp.url);
    expect(as.authorizationRequests).toHaveLength(1);
    const [record] = store.records.values();
    expect(record.tokens?.refreshToken).toBeDefined();
    expect(record.client?.clientId).toBe(as.clients[0].clientId);
  });

  it('concurrent refusals share one refresh', async () => {
    const { as, mcp } = await setUp({ scopesSupported: ['mcp:read', 'offline_access'] });
    const client = await connected(mcp.url, oauth({ interaction: headlessInteraction() }));
    as.expireAccessTokens();
    const results = await Promise.all([1, 2, 3, 4].map(() => client.callTool('whoami', {})));
    expect(results.map((result) => whoami(result).subject)).toEqual(['user-1', 'user-1', 'user-1', 'user-1']);
    expect(as.tokenRequests.filter((request) => request.grantType === 'refresh_token')).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('authorizes a WebSocket upgrade: 401, the flow, then the socket opens with the token', async () => {
    const { as, mcp } = await setUp({}, { websocket: true });
    const client = new Client({ name: 'ws-oauth', version: '1.0.0' });
    await client.connect(
      new WebSocketClientTransport({
        url: mcp.url.replace(/^http/, 'ws'),
        auth: oauth({ interaction: headlessInteraction() }),
      }),
    );
    cleanups.push(() => client.close());
    expect(whoami(await client.callTool('whoami', {})).subject).toBe('user-1');
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.authorizationRequests[0].params.resource).toBe(mcp.url);
  });

  it('never asks for offline_access when the server does not list it', async () => {
    const { as, mcp } = await setUp();
    await connected(mcp.url, oauth({ interaction: headlessInteraction() }));
    expect(as.authorizationRequests[0].params.scope).toBe('mcp:read');
  });

  it('reuses stored tokens in a new client: no second flow', async () => {
    const { as, mcp } = await setUp();
    const store = recordingStore();
    const first = await connected(mcp.url, oauth({ interaction: headlessInteraction(), store }));
    await first.callTool('whoami', {});
    await first.close();

    const second = await connected(mcp.url, oauth({ interaction: headlessInteraction(), store }));
    await second.callTool('whoami', {});
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.clients).toHaveLength(1);
  });

  it('uses a Client ID Metadata Document URL as client_id when the server supports them', async () => {
    const { mcp, as } = await setUp({ cimd: true });
    // The document, served on loopback (the fixture fetches plain http only there).
    const documentServer = await import('node:http').then(({ createServer }) => {
      const server = createServer((request, response) => {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}${request.url}`;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            client_id: url,
            client_name: 'cimd client',
            redirect_uris: ['http://127.0.0.1/callback'],
            token_endpoint_auth_method: 'none',
          }),
        );
      });
      return new Promise<typeof server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
    });
    cleanups.push(() => new Promise((resolve) => documentServer.close(resolve)));
    const metadataUrl = `http://127.0.0.1:${(documentServer.address() as { port: number }).port}/client.json`;

    const client = await connected(
      mcp.url,
      oauth({ interaction: headlessInteraction(), clientMetadataUrl: metadataUrl }),
    );
    await client.callTool('whoami', {});
    expect(as.authorizationRequests[0].params.client_id).toBe(metadataUrl);
    expect(as.metadataDocumentFetches).toContain(metadataUrl);
    expect(as.tokenRequests[0].authMethod).toBe('none');
  });

  it('uses a pre-registered client with client_secret_post when that is all the server takes', async () => {
    const { mcp, as } = await setUp({
      registration: false,
      tokenEndpointAuthMethods: ['client_secret_post'],
      preRegistered: [
        {
          clientId: 'cli',
          clientSecret: 's3cret',
          tokenEndpointAuthMethod: 'client_secret_post',
          redirectUris: ['http://127.0.0.1/callback'],
        },
      ],
    });
    const client = await connected(
      mcp.url,
      oauth({ interaction: headlessInteraction(), client: { clientId: 'cli', clientSecret: 's3cret' } }),
    );
    await client.callTool('whoami', {});
    expect(as.tokenRequests[0]).toMatchObject({
      authMethod: 'client_secret_post',
      clientId: 'cli',
      status: 200,
    });
  });

  it('finds a path-based issuer through OpenID Connect discovery', async () => {
    const { mcp, as } = await setUp({ issuerPath: '/tenant1', metadataAt: 'openid' });
    const client = await connected(mcp.url, oauth({ interaction: headlessInteraction() }));
    await client.callTool('whoami', {});
    expect(as.metadataRequests).toEqual([
      '/.well-known/oauth-authorization-server/tenant1',
      '/.well-known/openid-configuration/tenant1',
    ]);
  });
});

describe('oauth(): refusals surface as errors naming the problem', () => {
  it('a denied authorization rejects connect with AuthorizationError (access_denied), not a network error', async () => {
    const { mcp } = await setUp({ approve: () => false });
    const error = await connected(mcp.url, oauth({ interaction: headlessInteraction() })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as AuthorizationError).code).toBe('GANTRY_ERR_AUTHORIZATION');
    expect((error as AuthorizationError).oauthError).toBe('access_denied');
  });

  it('refuses an authorization server that does not advertise S256', async () => {
    const { mcp, as } = await setUp({ pkceMethods: [] });
    const error = await connected(mcp.url, oauth({ interaction: headlessInteraction() })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toMatch(/does not advertise PKCE with S256/);
    expect(as.authorizationRequests).toEqual([]);
  });

  it('names the missing registration path and how to fix it', async () => {
    const { mcp } = await setUp({ registration: false });
    const error = await connected(mcp.url, oauth({ interaction: headlessInteraction() })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toMatch(
      /no way to register this client.*pre-registered `client: \{ clientId/,
    );
  });

  it('without auth, a protected server answers one 401 and connect rejects with its parsed challenge', async () => {
    const { mcp } = await setUp();
    const client = new Client({ name: 'no-auth', version: '1.0.0' });
    let posts = 0;
    const error = await connectHttp(client, mcp.url, {
      fetch: (input, init) => {
        posts++;
        return fetch(input, init);
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    const refusal = error as HttpStatusError;
    expect(refusal.status).toBe(401);
    expect(refusal.challenges[0].scheme).toBe('bearer');
    expect(refusal.challenges[0].params.resource_metadata).toBe(mcp.resourceMetadataUrl);
    // era 'auto' does not fall back to initialize after a 401: one request, one refusal.
    expect(posts).toBe(1);
  });
});

describe('clientCredentials()', () => {
  it('gets a token with client_secret_basic and the resource, with no user', async () => {
    const { mcp, as } = await setUp({
      preRegistered: [{ clientId: 'svc', clientSecret: 'a b+c' }],
    });
    const client = await connected(mcp.url, clientCredentials({ clientId: 'svc', clientSecret: 'a b+c' }));
    const me = whoami(await client.callTool('whoami', {}));
    expect(me.clientId).toBe('svc');
    expect(as.tokenRequests[0]).toMatchObject({
      grantType: 'client_credentials',
      authMethod: 'client_secret_basic',
      status: 200,
    });
    expect(as.tokenRequests[0].params.resource).toBe(mcp.url);
  });

  it.each(['RS256', 'ES256'] as const)('authenticates with a private-key JWT (%s)', async (alg) => {
    const key = generateSigningKey(alg);
    const { mcp, as } = await setUp({
      tokenEndpointAuthMethods: ['private_key_jwt'],
      preRegistered: [
        { clientId: 'signer', publicKeyPem: key.publicKeyPem, grantTypes: ['client_credentials'] },
      ],
    });
    const pem = key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const client = await connected(mcp.url, clientCredentials({ clientId: 'signer', privateKey: { pem } }));
    await client.callTool('whoami', {});
    expect(as.tokenRequests[0]).toMatchObject({
      authMethod: 'private_key_jwt',
      clientId: 'signer',
      status: 200,
    });
  });

  it('a wrong secret rejects with AuthorizationError invalid_client', async () => {
    const { mcp } = await setUp({ preRegistered: [{ clientId: 'svc', clientSecret: 'right' }] });
    const error = await connected(
      mcp.url,
      clientCredentials({ clientId: 'svc', clientSecret: 'wrong' }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as AuthorizationError).oauthError).toBe('invalid_client');
  });
});
