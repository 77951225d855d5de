// Which client_id to use with an authorization server (MCP 2025-11-25, Basic › Authorization
// §"Client Registration Approaches"): pre-registered credentials, else a Client ID Metadata
// Document URL when the server supports them, else Dynamic Client Registration (RFC 7591).
import { readBodyText } from '../http-exchange';
import type { AuthorizationServerMetadata } from './discovery';
import { AuthorizationError } from './errors';
import { checkTransportSecurity } from './insecure-http';
import type { EndpointSettings } from './token-endpoint';
import type { StoredClient } from './types';

/** A client registered out of band with the authorization server. */
export interface PreRegisteredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** Default: what the server supports and the credentials allow. */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

export interface RegistrationRequest extends EndpointSettings {
  readonly server: AuthorizationServerMetadata;
  readonly redirectUri: string;
  readonly clientName: string;
  readonly client?: PreRegisteredClient;
  readonly clientMetadataUrl?: string;
  /** What the store holds for this server, if anything. */
  readonly stored?: StoredClient;
  readonly scope?: string;
}

const MAX_REGISTRATION_BYTES = 64 * 1024;

/** The registration to use for one authorization. */
export async function clientFor(request: RegistrationRequest): Promise<StoredClient> {
  const { server, redirectUri } = request;
  if (request.client) {
    return {
      issuer: server.issuer,
      clientId: request.client.clientId,
      clientSecret: request.client.clientSecret,
      redirectUri,
      tokenEndpointAuthMethod: request.client.tokenEndpointAuthMethod,
    };
  }
  const stored = request.stored;
  if (
    stored !== undefined &&
    stored.issuer === server.issuer &&
    stored.redirectUri === redirectUri &&
    (stored.clientSecretExpiresAt === undefined ||
      stored.clientSecretExpiresAt === 0 ||
      stored.clientSecretExpiresAt > Date.now())
  ) {
    return stored;
  }
  if (request.clientMetadataUrl !== undefined && server.client_id_metadata_document_supported === true) {
    return {
      issuer: server.issuer,
      clientId: request.clientMetadataUrl,
      redirectUri,
      tokenEndpointAuthMethod: 'none',
    };
  }
  if (server.registration_endpoint !== undefined) return registerDynamically(request);
  throw new AuthorizationError(
    `The authorization server ${server.issuer} offers no way to register this client (no Client ID Metadata Document support${request.clientMetadataUrl === undefined ? ' used: no clientMetadataUrl given' : ''}, no registration_endpoint): pass a pre-registered \`client: { clientId, clientSecret }\``,
  );
}

/** RFC 7591 §3.1: POSTs the client metadata, reads the client information response. */
async function registerDynamically(request: RegistrationRequest): Promise<StoredClient> {
  const { server } = request;
  const endpoint = new URL(server.registration_endpoint as string);
  checkTransportSecurity(endpoint, 'The registration endpoint', request.allowInsecureHttp);
  // A confidential registration when the server allows one; `none` when it is all it takes.
  const offered = server.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const method =
    (['client_secret_basic', 'client_secret_post', 'none'] as const).find((item) => offered.includes(item)) ??
    'client_secret_basic';
  const metadata = {
    client_name: request.clientName,
    redirect_uris: [request.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
    ...(request.scope !== undefined ? { scope: request.scope } : {}),
  };
  let response: Response;
  try {
    response = await request.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(metadata),
      signal: request.signal,
    });
  } catch (error) {
    throw new AuthorizationError(
      `Client registration at ${endpoint.href} failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const text = await readBodyText(response, MAX_REGISTRATION_BYTES);
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  if (!response.ok) {
    const code = typeof body?.error === 'string' ? body.error : undefined;
    const description = typeof body?.error_description === 'string' ? ` (${body.error_description})` : '';
    throw new AuthorizationError(
      `Client registration at ${endpoint.href} failed: HTTP ${response.status}${code ? ` ${code}` : ''}${description}`,
      { status: response.status, oauthError: code },
    );
  }
  if (typeof body?.client_id !== 'string' || body.client_id === '') {
    throw new AuthorizationError(
      `Client registration at ${endpoint.href} answered no client_id (RFC 7591 §3.2.1): ${text.slice(0, 200)}`,
    );
  }
  const expiresAt =
    typeof body.client_secret_expires_at === 'number' ? body.client_secret_expires_at * 1000 : undefined;
  return {
    issuer: server.issuer,
    clientId: body.client_id,
    clientSecret: typeof body.client_secret === 'string' ? body.client_secret : undefined,
    clientSecretExpiresAt: expiresAt,
    redirectUri: request.redirectUri,
    tokenEndpointAuthMethod:
      typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : method,
  };
}
