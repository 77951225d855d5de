import { discardBody } from '../http-exchange';
import type { McpAuth } from './types';
import { parseWwwAuthenticate } from './www-authenticate';

/** Retries of one request after challenges (a flow, then a step-up or two). */
const MAX_CHALLENGE_RETRIES = 4;

/**
 * `fetchImpl` with `auth` applied: each request carries the strategy's `Authorization`, and a
 * 401 (or a 403 with a Bearer `insufficient_scope`, RFC 6750 §3.1) is handed to the strategy,
 * then the request is sent again when it says so. Bodies are strings here, so a retry resends
 * the same request. What the strategy cannot fix is returned as the server answered it.
 */
export function authorizedFetch(fetchImpl: typeof fetch, auth: McpAuth): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const signal = init?.signal ?? undefined;
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init?.headers);
      const authorization = await auth.authorization(url, signal);
      if (authorization !== undefined) headers.set('authorization', authorization);
      const response = await fetchImpl(input, { ...init, headers });
      if ((response.status !== 401 && response.status !== 403) || attempt >= MAX_CHALLENGE_RETRIES)
        return response;
      const challenges = parseWwwAuthenticate(response.headers.get('www-authenticate'));
      if (response.status === 403 && !challenges.some((item) => item.params.error === 'insufficient_scope')) {
        return response;
      }
      const retry = await auth.challenge({
        url,
        status: response.status,
        challenges,
        usedAuthorization: authorization,
        signal,
      });
      if (!retry) return response;
      await discardBody(response);
    }
  };
}
