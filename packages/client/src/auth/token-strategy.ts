// The part every token-based strategy shares: tokens per protected resource, kept in a
// TokenStore; one flow at a time per resource (concurrent 401s wait for it instead of each
// starting one); refresh before expiry; and what a 401 or a 403 `insufficient_scope` means.
import { type Discovery, discover } from './discovery';
import { AuthorizationError } from './errors';
import { storeKeyFor } from './store-key';
import {
  authorizationHeader,
  type EndpointSettings,
  isExpiring,
  joinScopes,
  scopeSet,
} from './token-endpoint';
import { memoryTokenStore } from './token-store';
import type {
  AuthChallenge,
  AuthChallengeContext,
  AuthRecord,
  McpAuth,
  StoredTokens,
  TokenStore,
} from './types';
import { bearerChallenge } from './www-authenticate';

/** Options every token strategy takes. */
export interface TokenStrategyOptions {
  /** Where tokens (and registrations) are kept; default in memory, for this process only. */
  store?: TokenStore;
  /** The `fetch` for metadata, registration and token requests; default the global one. */
  fetch?: typeof fetch;
  /**
   * Allow plain-HTTP authorization endpoints that are not loopback. Default false: OAuth needs
   * TLS (OAuth 2.1 §1.5); `localhost`, 127.0.0.0/8 and `::1` are always allowed.
   */
  allowInsecureHttp?: boolean;
  /** The scope to request when neither the challenge nor the server's metadata names one. */
  scope?: string;
  /** Re-authorizations for more scope (403 `insufficient_scope`) per resource; default 3. */
  maxStepUps?: number;
}

/** What one protected resource needs, kept while the strategy lives. */
export interface ResourceState {
  readonly key: string;
  readonly url: URL;
  record: AuthRecord;
  discovery?: Discovery;
  /** The `resource_metadata` URL the discovery was made from. */
  discoveredFrom?: string;
  stepUps: number;
  /** The header of the token the last full flow issued, and when. */
  issued?: { header: string; at: number };
  /** The flow or refresh running now: others wait for it. */
  busy?: Promise<unknown>;
}

/** Why a flow runs: the challenge that asked for it and the scope to request. */
export interface FlowRequest {
  readonly state: ResourceState;
  readonly discovery: Discovery;
  /** The scope to request, already chosen (challenge, metadata or option). */
  readonly scope: string | undefined;
  readonly signal?: AbortSignal;
}

/** A refused brand-new token means the server will not take what this flow issues. */
const FRESH_TOKEN_MS = 60_000;

export abstract class TokenStrategy implements McpAuth {
  protected readonly store: TokenStore;
  protected readonly settings: EndpointSettings;
  private readonly maxStepUps: number;
  private readonly scope: string | undefined;
  private readonly states = new Map<string, Promise<ResourceState>>();

  constructor(options: TokenStrategyOptions) {
    this.store = options.store ?? memoryTokenStore();
    this.settings = {
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      allowInsecureHttp: options.allowInsecureHttp ?? false,
    };
    this.maxStepUps = options.maxStepUps ?? 3;
    this.scope = options.scope;
  }

  /** Obtains tokens for a resource (the grant this strategy is about). */
  protected abstract obtain(request: FlowRequest): Promise<StoredTokens>;

  /**
   * Refreshes `tokens`; undefined when this strategy cannot (then a full flow runs). By default
   * it cannot: machine-to-machine grants simply ask again (RFC 6749 §4.4.3: no refresh token).
   */
  protected async refresh(
    _state: ResourceState,
    _tokens: StoredTokens,
    _signal?: AbortSignal,
  ): Promise<StoredTokens | undefined> {
    return undefined;
  }

  /**
   * The scope of a first authorization when the challenge names none (MCP 2025-11-25 §"Scope
   * Selection Strategy"): the resource's `scopes_supported`, else the `scope` option, else none.
   */
  private defaultScope(discovery: Discovery): string | undefined {
    const supported = discovery.resourceMetadata?.scopes_supported;
    return supported && supported.length > 0 ? supported.join(' ') : this.scope;
  }

  async authorization(url: URL, signal?: AbortSignal): Promise<string | undefined> {
    const state = await this.stateFor(url);
    if (state.busy) await state.busy.catch(() => {});
    let tokens = state.record.tokens;
    if (tokens && isExpiring(tokens)) {
      tokens = await this.exclusive(state, () => this.tryRefresh(state, tokens as StoredTokens, signal));
    }
    return tokens ? authorizationHeader(tokens) : undefined;
  }

  async challenge(context: AuthChallengeContext): Promise<boolean> {
    const state = await this.stateFor(context.url);
    return this.exclusive(state, () => this.answer(state, context));
  }

  /** Forgets the tokens of `url` (here and in the store). */
  async logout(url: string | URL): Promise<void> {
    const state = await this.stateFor(new URL(url));
    state.record = {};
    await this.store.delete(state.key);
  }

  private async answer(state: ResourceState, context: AuthChallengeContext): Promise<boolean> {
    const current = state.record.tokens;
    const currentHeader = current ? authorizationHeader(current) : undefined;
    // Another request's challenge already replaced the refused token.
    if (currentHeader !== undefined && currentHeader !== context.usedAuthorization) return true;
    const bearer = bearerChallenge(context.challenges);
    if (context.status === 403) return this.stepUp(state, context, bearer, current);

    if (current && currentHeader === context.usedAuthorization) {
      if (current.refreshToken !== undefined) {
        const refreshed = await this.tryRefresh(state, current, context.signal);
        if (refreshed) return true;
      }
      const issued = state.issued;
      if (
        issued !== undefined &&
        issued.header === currentHeader &&
        Date.now() - issued.at < FRESH_TOKEN_MS
      ) {
        // A token a flow just obtained was refused: another flow would only get the same.
        return false;
      }
    }
    const discovery = await this.discovery(state, bearer, context.signal);
    const scope = bearer?.params.scope ?? this.defaultScope(discovery);
    await this.run({ state, discovery, scope, signal: context.signal });
    return true;
  }

  /** RFC 6750 §3.1 `insufficient_scope`: authorize again for the union of held and required scopes. */
  private async stepUp(
    state: ResourceState,
    context: AuthChallengeContext,
    bearer: AuthChallenge | undefined,
    current: StoredTokens | undefined,
  ): Promise<boolean> {
    if (bearer?.params.error !== 'insufficient_scope') return false;
    const held = scopeSet(current?.scope);
    const required = scopeSet(bearer.params.scope);
    // Asking again for scopes already granted would only loop.
    if (required.size > 0 && [...required].every((scope) => held.has(scope))) return false;
    if (state.stepUps >= this.maxStepUps) return false;
    state.stepUps++;
    const discovery = await this.discovery(state, bearer, context.signal);
    const scope = joinScopes(new Set([...held, ...required]));
    await this.run({
      state,
      discovery,
      scope: scope ?? this.defaultScope(discovery),
      signal: context.signal,
    });
    return true;
  }

  private async run(request: FlowRequest): Promise<void> {
    const tokens = await this.obtain(request);
    await this.saveTokens(request.state, tokens);
    request.state.issued = { header: authorizationHeader(tokens), at: Date.now() };
  }

  private async tryRefresh(
    state: ResourceState,
    tokens: StoredTokens,
    signal: AbortSignal | undefined,
  ): Promise<StoredTokens | undefined> {
    if (state.record.tokens !== tokens) return state.record.tokens; // refreshed meanwhile
    if (tokens.refreshToken === undefined) return undefined;
    try {
      const refreshed = await this.refresh(state, tokens, signal);
      if (refreshed) {
        await this.saveTokens(state, refreshed);
        return refreshed;
      }
    } catch (error) {
      // An invalid_grant refresh token is dead: forget it, so a full flow runs next.
      if (!(error instanceof AuthorizationError)) throw error;
    }
    await this.saveTokens(state, undefined);
    return undefined;
  }

  protected async discovery(
    state: ResourceState,
    bearer: AuthChallenge | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Discovery> {
    const from = bearer?.params.resource_metadata;
    if (state.discovery === undefined || (from !== undefined && from !== state.discoveredFrom)) {
      state.discovery = await discover(state.url, from, { ...this.settings, signal });
      state.discoveredFrom = from;
    }
    return state.discovery;
  }

  protected async saveRecord(state: ResourceState, record: AuthRecord): Promise<void> {
    state.record = record;
    await this.store.save(state.key, record);
  }

  private saveTokens(state: ResourceState, tokens: StoredTokens | undefined): Promise<void> {
    const { tokens: _old, ...rest } = state.record;
    return this.saveRecord(state, tokens ? { ...rest, tokens } : rest);
  }

  /** Runs `task` when no other flow of `state` runs. */
  private async exclusive<T>(state: ResourceState, task: () => Promise<T>): Promise<T> {
    while (state.busy) await state.busy.catch(() => {});
    const running = task();
    state.busy = running;
    try {
      return await running;
    } finally {
      if (state.busy === running) state.busy = undefined;
    }
  }

  private stateFor(url: URL): Promise<ResourceState> {
    const key = storeKeyFor(url);
    let state = this.states.get(key);
    if (state === undefined) {
      state = this.store.load(key).then((record) => ({ key, url, record: record ?? {}, stepUps: 0 }));
      this.states.set(key, state);
      state.catch(() => this.states.delete(key));
    }
    return state;
  }
}
