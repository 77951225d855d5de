import { AuthorizationError } from './errors';
import type { AuthorizationInteraction } from './types';

/** Options of {@link headlessInteraction}. */
export interface HeadlessInteractionOptions {
  /** The redirect URI to register; default `http://127.0.0.1/callback` (never listened on). */
  redirectUri?: string;
  /** The `fetch` for the authorization endpoint; default the global one. */
  fetch?: typeof fetch;
  /** Headers for that request (e.g. a test login cookie). */
  headers?: Record<string, string>;
}

/**
 * An interaction with no user, for tests and automation against authorization servers that
 * approve at once: it GETs the authorization URL without following redirects and resolves
 * with the `Location` the server redirects to (the redirect URI, with `code` and `state`).
 * The redirect URI itself is never requested.
 */
export function headlessInteraction(options: HeadlessInteractionOptions = {}): AuthorizationInteraction {
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1/callback';
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  return {
    redirectUri: async () => redirectUri,
    async authorize(url, signal) {
      const response = await fetchImpl(url, { redirect: 'manual', headers: options.headers, signal });
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) {
        throw new AuthorizationError(
          `The authorization endpoint ${url.origin}${url.pathname} answered HTTP ${response.status} without a redirect: a headless interaction needs a server that approves at once`,
          { status: response.status },
        );
      }
      return new URL(location, url);
    },
    close: async () => {},
  };
}
