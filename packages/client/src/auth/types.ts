// The seams of the OAuth client: what a transport asks of an auth strategy, where tokens and
// client registrations are kept, and how a user is sent to the authorization server and back
// (MCP 2025-11-25, Basic › Authorization; OAuth 2.1 draft; RFC 8252 for native apps).

/** One parsed `WWW-Authenticate` challenge (RFC 9110 §11.6.1). */
export interface AuthChallenge {
  /** The scheme, lower-cased (`bearer`, `dpop`, …). */
  readonly scheme: string;
  /** Its auth-params, names lower-cased, values unquoted. */
  readonly params: Readonly<Record<string, string>>;
}

/** What a transport tells its auth strategy when the server refused a request. */
export interface AuthChallengeContext {
  /** The MCP endpoint that answered. */
  readonly url: URL;
  /** 401 (no or bad token) or 403 (e.g. `insufficient_scope`, RFC 6750 §3.1). */
  readonly status: 401 | 403;
  /** Every challenge of the answer's `WWW-Authenticate` headers, parsed. */
  readonly challenges: readonly AuthChallenge[];
  /** The `Authorization` header value the refused request carried, if any. */
  readonly usedAuthorization: string | undefined;
  readonly signal?: AbortSignal;
}

/**
 * How an HTTP or WebSocket client transport authenticates (the `auth` option). The transport
 * calls `authorization` before each request and `challenge` when the server answers 401/403
 * with a challenge; it retries the request once per `true`.
 */
export interface McpAuth {
  /** The `Authorization` header value for a request to `url`, or undefined to send none. */
  authorization(url: URL, signal?: AbortSignal): Promise<string | undefined>;
  /**
   * Acts on a refusal (runs a flow, refreshes, steps up). Resolves true when the request should
   * be retried with a fresh `authorization`; false when the strategy has nothing better (the
   * transport then surfaces the refusal); rejects with an `AuthorizationError` when a flow failed.
   */
  challenge(context: AuthChallengeContext): Promise<boolean>;
}

/** Tokens held for one protected resource (RFC 6749 §5.1). */
export interface StoredTokens {
  readonly accessToken: string;
  /** As the authorization server named it, e.g. `Bearer`. */
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** When the access token expires (epoch ms), when the server said (`expires_in`). */
  readonly expiresAt?: number;
  /** The scope granted, space-separated, when known. */
  readonly scope?: string;
}

/** A client registration with one authorization server (pre-registered, CIMD or RFC 7591). */
export interface StoredClient {
  /** The authorization server's issuer identifier. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  /** RFC 7591 `client_secret_expires_at` as epoch ms; absent or 0: never. */
  readonly clientSecretExpiresAt?: number;
  /** The redirect URI the registration holds. */
  readonly redirectUri?: string;
  /** The token endpoint authentication method it was registered with. */
  readonly tokenEndpointAuthMethod?: string;
}

/** What a {@link TokenStore} keeps under one key. */
export interface AuthRecord {
  readonly tokens?: StoredTokens;
  readonly client?: StoredClient;
}

/**
 * Where an auth strategy keeps tokens and client registrations between runs. Keys are opaque
 * strings the strategy builds (they name the protected resource); values are plain JSON.
 */
export interface TokenStore {
  load(key: string): Promise<AuthRecord | undefined>;
  save(key: string, record: AuthRecord): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key held (for `gantry auth logout --all` and listings). */
  keys(): Promise<string[]>;
}

/**
 * How the user reaches the authorization endpoint and the redirect comes back: a browser and a
 * loopback listener for a CLI (RFC 8252 §7.3), a headless fetch in tests.
 */
export interface AuthorizationInteraction {
  /**
   * The redirect URI to register and send. `preferred` is the one a stored registration holds:
   * return it when it can still receive the redirect, so the registration stays valid.
   */
  redirectUri(preferred?: string): Promise<string>;
  /** Sends the user to `authorizationUrl`; resolves with the URL the server redirected back to. */
  authorize(authorizationUrl: URL, signal?: AbortSignal): Promise<URL>;
  /** Releases what the interaction holds (a listening socket); safe to call twice. */
  close(): Promise<void>;
}
