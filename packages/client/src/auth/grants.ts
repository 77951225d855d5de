// Machine-to-machine strategies: the client credentials grant (RFC 6749 §4.4) with a secret or
// a private-key JWT assertion (RFC 7523 §2.2), and Enterprise-Managed Authorization (SEP-990:
// an ID token exchanged at the enterprise IdP for an Identity Assertion JWT Authorization Grant,
// RFC 8693, then a JWT bearer grant at the MCP server's authorization server, RFC 7523 §2.1);
// plus a fixed bearer token.
import type { ClientAuth, Client as OAuthClient, TokenEndpointResponse } from 'oauth4webapi';
import {
  chooseAuthMethod,
  clientAuthentication,
  clientSecretBasic,
  type PrivateKeyOption,
  type TokenEndpointAuthMethod,
} from './client-authentication';
import type { AuthorizationServerMetadata } from './discovery';
import { AuthorizationError } from './errors';
import { checkTransportSecurity } from './insecure-http';
import { oauthLibrary } from './oauth-library';
import { asServer, flowError, recognizedTokenTypes, requestOptions, storedTokens } from './token-endpoint';
import { type FlowRequest, TokenStrategy, type TokenStrategyOptions } from './token-strategy';
import type { McpAuth, StoredTokens } from './types';

/** Options of {@link clientCredentials}. */
export interface ClientCredentialsOptions extends TokenStrategyOptions {
  clientId: string;
  /** The client secret (`client_secret_basic` or `client_secret_post`). */
  clientSecret?: string;
  /** A private key for `private_key_jwt` (RFC 7523 §2.2) instead of a secret. */
  privateKey?: PrivateKeyOption;
  /** Default: what the server supports and the credentials allow. */
  method?: TokenEndpointAuthMethod;
}

/**
 * The client credentials grant, for a client acting on its own behalf (no user).
 *
 * @example
 * const auth = clientCredentials({ clientId: 'reporting', clientSecret: process.env.SECRET });
 */
export function clientCredentials(options: ClientCredentialsOptions): McpAuth {
  if (typeof options?.clientId !== 'string' || options.clientId === '') {
    throw new TypeError('clientCredentials(): `clientId` is required');
  }
  if (options.clientSecret === undefined && options.privateKey === undefined) {
    throw new TypeError('clientCredentials(): pass `clientSecret` or `privateKey`');
  }
  return new ClientCredentialsStrategy(options);
}

function tokenEndpointOf(server: AuthorizationServerMetadata, allowInsecureHttp: boolean): void {
  if (server.token_endpoint === undefined) {
    throw new AuthorizationError(`The authorization server ${server.issuer} lists no token_endpoint`);
  }
  checkTransportSecurity(new URL(server.token_endpoint), 'The token endpoint', allowInsecureHttp);
}

class ClientCredentialsStrategy extends TokenStrategy {
  constructor(private readonly options: ClientCredentialsOptions) {
    super(options);
  }

  protected async obtain({ discovery, scope, signal }: FlowRequest): Promise<StoredTokens> {
    const library = oauthLibrary();
    const server = discovery.server;
    tokenEndpointOf(server, this.settings.allowInsecureHttp);
    const method =
      this.options.method ??
      chooseAuthMethod(server.token_endpoint_auth_methods_supported, {
        secret: this.options.clientSecret !== undefined,
        privateKey: this.options.privateKey !== undefined,
      });
    const client: OAuthClient = { client_id: this.options.clientId };
    try {
      const authentication = await clientAuthentication(method, this.options);
      const parameters: Record<string, string> = { resource: discovery.resource };
      if (scope !== undefined) parameters.scope = scope;
      const response = await library.clientCredentialsGrantRequest(
        asServer(server),
        client,
        authentication,
        parameters,
        requestOptions(server, { ...this.settings, signal }),
      );
      const tokens = await library.processClientCredentialsResponse(asServer(server), client, response, {
        recognizedTokenTypes,
      });
      return storedTokens(tokens, scope);
    } catch (error) {
      throw flowError('The client credentials grant', error);
    }
  }
}

/** The enterprise identity provider of {@link crossAppAccess}. */
export interface EnterpriseIdp {
  /** The IdP's token endpoint, where the ID token is exchanged (RFC 8693). */
  tokenEndpoint: string;
  /** This client's id at the IdP. */
  clientId: string;
  clientSecret?: string;
  /** The user's ID token from the IdP (from the client's own sign-in), or a function returning it. */
  idToken: string | (() => string | Promise<string>);
}

/** Options of {@link crossAppAccess}. */
export interface CrossAppAccessOptions extends TokenStrategyOptions {
  /** This client's id at the MCP server's authorization server. */
  clientId: string;
  clientSecret: string;
  idp: EnterpriseIdp;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

/**
 * Enterprise-managed authorization (SEP-990, "cross-app access"): no browser. The user's ID
 * token is exchanged at the enterprise IdP for an ID-JAG naming the MCP server's authorization
 * server and resource, which that server then trades for an access token.
 */
export function crossAppAccess(options: CrossAppAccessOptions): McpAuth {
  if (!options?.clientId || !options.clientSecret) {
    throw new TypeError('crossAppAccess(): `clientId` and `clientSecret` are required');
  }
  if (!options.idp?.tokenEndpoint || !options.idp.clientId || options.idp.idToken === undefined) {
    throw new TypeError(
      'crossAppAccess(): `idp.tokenEndpoint`, `idp.clientId` and `idp.idToken` are required',
    );
  }
  return new CrossAppAccessStrategy(options);
}

class CrossAppAccessStrategy extends TokenStrategy {
  constructor(private readonly options: CrossAppAccessOptions) {
    super(options);
  }

  protected async obtain({ discovery, scope, signal }: FlowRequest): Promise<StoredTokens> {
    const library = oauthLibrary();
    const { idp } = this.options;
    const server = discovery.server;
    tokenEndpointOf(server, this.settings.allowInsecureHttp);
    const idpEndpoint = new URL(idp.tokenEndpoint);
    checkTransportSecurity(idpEndpoint, "The IdP's token endpoint", this.settings.allowInsecureHttp);
    const idpServer = { issuer: idpEndpoint.origin, token_endpoint: idpEndpoint.href };

    let assertion: string;
    try {
      const idToken = typeof idp.idToken === 'function' ? await idp.idToken() : idp.idToken;
      const authentication =
        idp.clientSecret !== undefined ? clientSecretBasic(idp.clientId, idp.clientSecret) : library.None();
      const exchanged = await this.grant(
        idpServer,
        idp.clientId,
        authentication,
        TOKEN_EXCHANGE,
        scope,
        signal,
        {
          requested_token_type: ID_JAG_TYPE,
          subject_token: idToken,
          subject_token_type: ID_TOKEN_TYPE,
          audience: server.issuer,
          resource: discovery.resource,
        },
      );
      assertion = exchanged.access_token;
    } catch (error) {
      throw flowError('Exchanging the ID token at the enterprise IdP', error);
    }

    try {
      const authentication = clientSecretBasic(this.options.clientId, this.options.clientSecret);
      const tokens = await this.grant(
        server,
        this.options.clientId,
        authentication,
        JWT_BEARER,
        scope,
        signal,
        {
          assertion,
          resource: discovery.resource,
        },
      );
      return storedTokens(tokens, scope);
    } catch (error) {
      throw flowError('The JWT bearer grant', error);
    }
  }

  /** One extension grant at `server`'s token endpoint (the `scope` added when there is one). */
  private async grant(
    server: AuthorizationServerMetadata,
    clientId: string,
    authentication: ClientAuth,
    grantType: string,
    scope: string | undefined,
    signal: AbortSignal | undefined,
    parameters: Record<string, string>,
  ): Promise<TokenEndpointResponse> {
    const library = oauthLibrary();
    const client: OAuthClient = { client_id: clientId };
    if (scope !== undefined) parameters.scope = scope;
    const response = await library.genericTokenEndpointRequest(
      asServer(server),
      client,
      authentication,
      grantType,
      parameters,
      requestOptions(server, { ...this.settings, signal }),
    );
    return library.processGenericTokenEndpointResponse(asServer(server), client, response, {
      recognizedTokenTypes,
    });
  }
}

/**
 * A bearer token the caller already has (an API key, a token from elsewhere), sent on every
 * request; a function is called before each one, so it may refresh. A refusal is surfaced.
 */
export function bearerToken(token: string | (() => string | Promise<string>)): McpAuth {
  if (typeof token !== 'function' && (typeof token !== 'string' || token === '')) {
    throw new TypeError('bearerToken(): pass a non-empty token or a function returning one');
  }
  return {
    authorization: async () => `Bearer ${typeof token === 'function' ? await token() : token}`,
    challenge: async () => false,
  };
}
