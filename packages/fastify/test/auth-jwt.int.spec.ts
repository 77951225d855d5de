/** @jest-environment ./packages/fastify/test/fixtures/jose-environment.ts */
import Fastify, { type FastifyInstance } from 'fastify';
import { InvalidTokenError, jwtVerifier } from '../src/auth';
import { authApp as appWith, bearer, METADATA, NOW as now, SERVER } from './fixtures/auth-app';
import { ISSUER, startTokenIssuer, type TokenIssuer } from './fixtures/token-issuer';

// jose 6 is ESM-only and Jest cannot require it on Node 20: see fixtures/jose-environment.ts.
jest.mock('jose', () => jest.requireActual('./fixtures/real-jose').realJose);

const HOUR = 3600;
const metadata = { authorizationServers: [ISSUER], scopesSupported: ['notes:read'] };

describe('jwtVerifier options', () => {
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

  it('are checked when the verifier is created', () => {
    expect(failure(() => jwtVerifier({ jwksUrl: 'https://auth.example.com/jwks' } as never))).toBe(
      "Invalid jwtVerifier options: 'audience' must be this server's canonical URI (or a non-empty list of accepted audiences), e.g. \"https://mcp.example.com/mcp\"; got undefined",
    );
    expect(failure(() => jwtVerifier({ jwksUrl: '/jwks', audience: 'https://mcp.example.com/mcp' }))).toBe(
      'Invalid jwtVerifier options: \'jwksUrl\' must be an absolute http(s) URL, got "/jwks"',
    );
    expect(
      failure(() =>
        jwtVerifier({
          jwksUrl: 'https://auth.example.com/jwks',
          audience: 'https://mcp.example.com/mcp',
          clockToleranceSec: -1,
        }),
      ),
    ).toBe("Invalid jwtVerifier options: 'clockToleranceSec' must be a number of seconds ≥ 0, got -1");
  });
});

describe('jwtVerifier against a JWKS served on loopback', () => {
  let issuer: TokenIssuer;
  let app: FastifyInstance;
  const AUDIENCE = `${SERVER}/mcp`;

  beforeAll(async () => {
    issuer = await startTokenIssuer();
    app = appWith({
      verify: jwtVerifier({
        jwksUrl: issuer.jwksUrl,
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['RS256'],
      }),
      metadata,
      requiredScopes: ['notes:read'],
    });
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const call = (token: string) => app.inject({ method: 'GET', url: '/mcp', headers: bearer(token) });
  const invalid = (reason: string) =>
    `Bearer error="invalid_token", error_description="${reason}", scope="notes:read", ${METADATA}`;

  it('200: a valid token reaches the handler with the claims mapped to AuthInfo', async () => {
    const exp = now() + HOUR;
    const token = await issuer.sign(
      { sub: 'alice', client_id: 'client-1', scope: 'notes:read notes:write', aud: AUDIENCE },
      { exp },
    );
    const response = await call(token);
    expect(response.statusCode).toBe(200);
    const { auth } = response.json();
    expect(auth).toEqual({
      token,
      clientId: 'client-1',
      subject: 'alice',
      scopes: ['notes:read', 'notes:write'],
      expiresAt: exp,
      resource: AUDIENCE,
      extra: {
        iss: ISSUER,
        iat: auth.extra.iat,
        exp,
        sub: 'alice',
        client_id: 'client-1',
        scope: 'notes:read notes:write',
        aud: AUDIENCE,
      },
    });
    expect(Math.abs(auth.extra.iat - now())).toBeLessThan(60);
  });

  it('200: azp, an scp array and a list audience map too; resource is the audience that matched', async () => {
    const token = await issuer.sign({
      azp: 'client-2',
      scp: ['notes:read'],
      aud: ['https://api.example.com', AUDIENCE],
    });
    const response = await call(token);
    expect(response.statusCode).toBe(200);
    const { auth } = response.json();
    expect(auth.clientId).toBe('client-2');
    expect(auth.subject).toBeUndefined();
    expect(auth.scopes).toEqual(['notes:read']);
    expect(auth.resource).toBe(AUDIENCE);
  });

  it('401: a token for another audience', async () => {
    const response = await call(
      await issuer.sign({ sub: 'alice', scope: 'notes:read', aud: 'https://other.example.com/mcp' }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid('token audience does not match this resource'));
    expect(response.json().error).toEqual({
      code: -32000,
      message: 'Invalid access token: token audience does not match this resource',
    });
  });

  it('401: an expired token', async () => {
    const response = await call(
      await issuer.sign({ scope: 'notes:read', aud: AUDIENCE }, { exp: now() - 120 }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid('token expired'));
  });

  it('401: a token without exp (RFC 9068 requires it)', async () => {
    const response = await call(await issuer.sign({ scope: 'notes:read', aud: AUDIENCE }, { exp: null }));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid("token lacks the 'exp' claim"));
  });

  it('401: a bad signature (another key under the known kid)', async () => {
    const response = await call(await issuer.sign({ scope: 'notes:read', aud: AUDIENCE }, { forged: true }));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid('token signature is invalid'));
  });

  it('401: a key the JWKS does not have, with at most one refetch of the JWKS', async () => {
    const before = issuer.fetches;
    const response = await call(
      await issuer.sign({ scope: 'notes:read', aud: AUDIENCE }, { forged: true, kid: 'key-2' }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid('token is signed with an unknown key'));
    expect(issuer.fetches - before).toBeLessThanOrEqual(1);
  });

  it('401: another issuer', async () => {
    const response = await call(
      await issuer.sign({ iss: 'https://evil.example.com', scope: 'notes:read', aud: AUDIENCE }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid('token issuer is not trusted'));
  });

  it('401: something that is not a JWT', async () => {
    const response = await call('not-a-jwt');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(invalid('token is not a well-formed JWT'));
  });

  it('403: a valid token without the required scope', async () => {
    const response = await call(await issuer.sign({ sub: 'alice', scope: 'notes:write', aud: AUDIENCE }));
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="notes:read", ${METADATA}`,
    );
  });

  it('clockToleranceSec forgives a not-yet-valid nbf from a clock running ahead', async () => {
    const tolerant = appWith({
      verify: jwtVerifier({ jwksUrl: issuer.jwksUrl, audience: AUDIENCE, clockToleranceSec: 60 }),
      metadata,
    });
    const token = await issuer.sign({ nbf: now() + 30, aud: AUDIENCE });
    expect((await tolerant.inject({ method: 'GET', url: '/mcp', headers: bearer(token) })).statusCode).toBe(
      200,
    );
    expect((await call(token)).headers['www-authenticate']).toBe(invalid('token is not valid yet'));
    await tolerant.close();
  });

  it("500: an unreachable JWKS is a server failure, not the token's", async () => {
    const gone = Fastify();
    const address = await gone.listen({ host: '127.0.0.1', port: 0 });
    await gone.close();
    const verify = jwtVerifier({ jwksUrl: `${address}/jwks`, audience: AUDIENCE });
    const token = await issuer.sign({ aud: AUDIENCE });
    const error = await Promise.resolve(verify(token, {} as never)).catch((e: Error) => e);
    expect(error).not.toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message).toMatch(
      new RegExp(`^jwtVerifier: could not use the JWKS at ${address}/jwks: `.replace(/[.]/g, '\\.')),
    );
  });
});
