// oauth4webapi (by the author of jose) does the OAuth protocol work that is easy to get subtly
// wrong: PKCE, authorization-response validation (state, iss, error), token-endpoint requests
// and response checks, and private-key JWT client assertions. It is ESM-only; Node ≥ 20.19
// `require`s ES modules, and loading it on first use keeps it off the start-up path of clients
// that never authenticate.
export type OAuthLibrary = typeof import('oauth4webapi');

let library: OAuthLibrary | undefined;

/** The oauth4webapi module, loaded on first use. */
export function oauthLibrary(): OAuthLibrary {
  library ??= require('oauth4webapi') as OAuthLibrary;
  return library;
}
