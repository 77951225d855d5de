// The authorization code grant with PKCE for an MCP client (MCP 2025-11-25, Basic ›
// Authorization §"Authorization Flow Steps"; OAuth 2.1 §4.1; RFC 7636; RFC 8707 `resource`).
import type { Client as OAuthClient } from 'oauth4webapi';
import { chooseAuthMethod, clientAuthentication } from './client-authentication';
import type { Discovery } from './discovery';
import { AuthorizationError } from './errors';
import { oauthLibrary } from './oauth-library';
import { clientFor, type PreRegisteredClient } from './registration';
import {
  asServer,
  flowError,
  joinScopes,
  recognizedTokenTypes,
  requestOptions,
  scopeSet,
  storedTokens,
} from './token-endpoint';
import {
  type FlowRequest,
  type ResourceState,
  TokenStrategy,
  type TokenStrategyOptions,
} from './token-strategy';
import type { AuthorizationInteraction, McpAuth, StoredClient, StoredTokens } from './types';

/** Options of {@link oauth}. */
export interface OAuthOptions extends TokenStrategyOptions {
  /** Sends the user to the authorization endpoint and brings the redirect back. */
  interaction: AuthorizationInteraction;
  /** `client_name` of a dynamic registration; default `Gantry MCP client`. */
  clientName?: string;
  /**
   * An HTTPS URL serving this client's Client ID Metadata Document, used as `client_id` when
   * the authorization server advertises `client_id_metadata_document_supported`.
   */
  clientMetadataUrl?: string;
  /** A client registered out of band; skips CIMD and dynamic registration. */
  client?: PreRegisteredClient;
  /**
   * Ask for `offline_access` (a refresh token) when the authorization server lists it in
   * `scopes_supported`; default true. Never asked of a server that does not list it.
   */
  offlineAccess?: boolean;
}

/**
 * OAuth 2.1 for an HTTP or WebSocket transport (`auth: oauth({ interaction })`). On a 401 it
 * discovers the authorization server, registers (pre-registered, CIMD or dynamic registration),
 * sends the user through `interaction`, exchanges the code (PKCE S256, `resource`, state and
 * `iss` checked) and retries; it refreshes tokens before they expire, and on a 403
 * `insufficient_scope` re-authorizes for the union of scopes.
 *
 * @example
 * const auth = oauth({ interaction: loopbackInteraction(), store: fileTokenStore() });
 * await connectHttp(client, 'https://mcp.example.com/mcp', { auth });
 */
export function oauth(options: OAuthOptions): McpAuth & { logout(url: string | URL): Promise<void> } {
  if (typeof options?.interaction?.authorize !== 'function') {
    throw new TypeError(
      'oauth(): `interaction` is required (e.g. loopbackInteraction() or headlessInteraction())',
    );
  }
  return new AuthorizationCodeStrategy(options);
}

class AuthorizationCodeStrategy extends TokenStrategy {
  constructor(private readonly options: OAuthOptions) {
    super(options);
  }

  protected async obtain(request: FlowRequest): Promise<StoredTokens> {
    const { state, discovery, signal } = request;
    const library = oauthLibrary();
    const server = discovery.server;
    if (server.authorization_endpoint === undefined || server.token_endpoint === undefined) {
      throw new AuthorizationError(
        `The authorization server ${server.issuer} lists no authorization_endpoint or token_endpoint`,
      );
    }
    // MCP 2025-11-25: a client MUST refuse an authorization server whose metadata does not
    // advertise S256 PKCE (the 2025-03-26 default endpoints publish no metadata to check).
    if (discovery.discovered && !server.code_challenge_methods_supported?.includes('S256')) {
      throw new AuthorizationError(
        `The authorization server ${server.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported: ${JSON.stringify(server.code_challenge_methods_supported ?? null)}); refusing to authorize without it`,
      );
    }
    const scope = this.withOfflineAccess(request.scope, discovery);
    const interaction = this.options.interaction;
    const redirectUri = await interaction.redirectUri(state.record.client?.redirectUri);
    const registered = await clientFor({
      ...this.settings,
      signal,
      server,
      redirectUri,
      clientName: this.options.clientName ?? 'Gantry MCP client',
      client: this.options.client,
      clientMetadataUrl: this.options.clientMetadataUrl,
      stored: state.record.client,
      scope,
    });
    if (registered !== state.record.client)
      await this.saveRecord(state, { ...state.record, client: registered });

    const verifier = library.generateRandomCodeVerifier();
    const codeChallenge = await library.calculatePKCECodeChallenge(verifier);
    const expectedState = library.generateRandomState();
    const url = new URL(server.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', registered.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('code_challenge', codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', expectedState);
    url.searchParams.set('resource', discovery.resource);
    if (scope !== undefined) url.searchParams.set('scope', scope);

    let callback: URL;
    try {
      callback = await interaction.authorize(url, signal);
    } catch (error) {
      throw flowError('Authorization', error);
    }
    const client = oauthClient(registered);
    let params: URLSearchParams;
    try {
      // The redirect's `state` (and `iss`, RFC 9207) checked; an `error` there ends the flow.
      params = library.validateAuthResponse(asServer(server), client, callback, expectedState);
    } catch (error) {
      throw flowError('Authorization', error);
    }
    try {
      const authentication = await clientAuthentication(this.authMethod(registered, discovery), {
        clientId: registered.clientId,
        clientSecret: registered.clientSecret,
      });
      const response = await library.authorizationCodeGrantRequest(
        asServer(server),
        client,
        authentication,
        params,
        redirectUri,
        verifier,
        {
          ...requestOptions(server, { ...this.settings, signal }),
          additionalParameters: { resource: discovery.resource },
        },
      );
      const tokens = await library.processAuthorizationCodeResponse(asServer(server), client, response, {
        recognizedTokenTypes,
      });
      return storedTokens(tokens, scope);
    } catch (error) {
      throw flowError('The authorization code exchange', error);
    }
  }

  protected override async refresh(
    state: ResourceState,
    tokens: StoredTokens,
    signal?: AbortSignal,
  ): Promise<StoredTokens | undefined> {
    const registered = state.record.client;
    if (tokens.refreshToken === undefined || registered === undefined) return undefined;
    const discovery = await this.discovery(state, undefined, signal);
    const library = oauthLibrary();
    const client = oauthClient(registered);
    try {
      const authentication = await clientAuthentication(this.authMethod(registered, discovery), {
        clientId: registered.clientId,
        clientSecret: registered.clientSecret,
      });
      const response = await library.refreshTokenGrantRequest(
        asServer(discovery.server),
        client,
        authentication,
        tokens.refreshToken,
        {
          ...requestOptions(discovery.server, { ...this.settings, signal }),
          additionalParameters: { resource: discovery.resource },
        },
      );
      const refreshed = await library.processRefreshTokenResponse(
        asServer(discovery.server),
        client,
        response,
        {
          recognizedTokenTypes,
        },
      );
      return storedTokens(refreshed, tokens.scope, tokens);
    } catch (error) {
      throw flowError('Refreshing the access token', error);
    }
  }

  private authMethod(registered: StoredClient, discovery: Discovery) {
    return chooseAuthMethod(
      discovery.server.token_endpoint_auth_methods_supported,
      { secret: registered.clientSecret !== undefined, privateKey: false },
      registered.tokenEndpointAuthMethod,
    );
  }

  /** MCP 2025-11-25 §"Refresh tokens": `offline_access` only when the server lists it. */
  private withOfflineAccess(scope: string | undefined, discovery: Discovery): string | undefined {
    if (this.options.offlineAccess === false) return scope;
    if (!discovery.server.scopes_supported?.includes('offline_access')) return scope;
    const scopes = scopeSet(scope);
    scopes.add('offline_access');
    return joinScopes(scopes);
  }
}

function oauthClient(registered: StoredClient): OAuthClient {
  return { client_id: registered.clientId };
}
