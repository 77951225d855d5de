/** @jest-environment ./packages/fastify/test/fixtures/jose-environment.ts */
import type { AddressInfo } from 'node:net';
import { Ctx, GantryFactory, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { gantryMcp, InsufficientScopeError, jwtVerifier } from '../src';
import { ISSUER, startTokenIssuer, type TokenIssuer } from './fixtures/token-issuer';

// jose 6 is ESM-only and Jest cannot require it on Node 20: see fixtures/jose-environment.ts.
jest.mock('jose', () => jest.requireActual('./fixtures/real-jose').realJose);

@Injectable()
class Whoami {
  @Tool({ description: 'Who the caller is' })
  whoami(@Ctx() ctx: McpContext) {
    return JSON.stringify({
      subject: ctx.auth?.subject,
      clientId: ctx.auth?.clientId,
      scopes: ctx.auth?.scopes,
    });
  }

  @Tool({ description: 'Needs notes:admin' })
  wipe(@Ctx() ctx: McpContext) {
    if (!ctx.auth?.scopes.includes('notes:admin'))
      throw new InsufficientScopeError(['notes:read', 'notes:admin']);
    return 'wiped';
  }
}

@Module({ providers: [Whoami] })
class AuthModule {}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'auth-test', version: '1' },
  },
};

describe('OAuth resource server on the MCP endpoint (real sockets, JWTs from a loopback JWKS)', () => {
  let issuer: TokenIssuer;
  let fastify: FastifyInstance;
  let base: string;
  let app: Awaited<ReturnType<typeof GantryFactory.create>>;

  beforeAll(async () => {
    issuer = await startTokenIssuer();
    app = await GantryFactory.create(AuthModule, { name: 'auth', version: '1', logger: false });
    fastify = Fastify({ logger: false });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fastify.server.address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    await fastify.close();
    fastify = Fastify({ logger: false });
    await fastify.register(gantryMcp, {
      app,
      auth: {
        verify: jwtVerifier({ jwksUrl: issuer.jwksUrl, issuer: ISSUER, audience: `${base}/mcp` }),
        metadata: {
          authorizationServers: [ISSUER],
          scopesSupported: ['notes:read', 'notes:admin'],
          resource: `${base}/mcp`,
        },
        requiredScopes: ['notes:read'],
      },
    });
    await fastify.listen({ host: '127.0.0.1', port });
  });

  afterAll(async () => {
    await fastify.close();
    await app.close();
    await issuer.close();
  });

  const token = (claims: Record<string, unknown>) =>
    issuer.sign({
      iss: ISSUER,
      aud: `${base}/mcp`,
      sub: 'alice',
      client_id: 'cli',
      scope: 'notes:read',
      ...claims,
    });

  async function post(body: unknown, headers: Record<string, string>) {
    return fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, ...headers },
      body: JSON.stringify(body),
    });
  }

  async function open(bearer: string): Promise<string> {
    const response = await post(INIT, { authorization: `Bearer ${bearer}` });
    expect(response.status).toBe(200);
    return response.headers.get('mcp-session-id') as string;
  }

  it('answers 401 with resource_metadata and scope, and serves the metadata it points to', async () => {
    const response = await post(INIT, {});
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') as string;
    expect(challenge).toBe(
      `Bearer scope="notes:read", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [ISSUER],
      scopes_supported: ['notes:read', 'notes:admin'],
      bearer_methods_supported: ['header'],
    });
  });

  it('lets a valid JWT through to ctx.auth', async () => {
    const bearer = await token({});
    const session = await open(bearer);
    const response = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } },
      { authorization: `Bearer ${bearer}`, 'mcp-session-id': session },
    );
    const body = (await response.json()) as any;
    expect(JSON.parse(body.result.content[0].text)).toEqual({
      subject: 'alice',
      clientId: 'cli',
      scopes: ['notes:read'],
    });
  });

  it('refuses a token for another audience with 401 invalid_token', async () => {
    const response = await post(INIT, {
      authorization: `Bearer ${await token({ aud: 'https://other.example/mcp' })}`,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'error="invalid_token", error_description="token audience does not match this resource"',
    );
  });

  it('answers a handler’s InsufficientScopeError with 403 insufficient_scope (step-up)', async () => {
    const bearer = await token({});
    const session = await open(bearer);
    const response = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wipe' } },
      { authorization: `Bearer ${bearer}`, 'mcp-session-id': session },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="notes:read notes:admin", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const admin = await token({ scope: 'notes:read notes:admin' });
    const allowed = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'wipe' } },
      { authorization: `Bearer ${admin}`, 'mcp-session-id': session },
    );
    expect(((await allowed.json()) as any).result.content[0].text).toBe('wiped');
  });

  it('refuses a session to another principal’s token, as if it did not exist', async () => {
    const session = await open(await token({}));
    const mallory = await token({ sub: 'mallory' });
    const response = await post(
      { jsonrpc: '2.0', id: 5, method: 'ping' },
      { authorization: `Bearer ${mallory}`, 'mcp-session-id': session },
    );
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.message).toBe(
      'Session not found: it ended or never existed; send initialize to start a new one',
    );
  });
});
