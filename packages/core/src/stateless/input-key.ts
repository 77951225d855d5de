import { Method } from '@gantry/protocol';

/**
 * The keys of `inputRequests` (MCP 2026-07-28, multi round-trip requests): the server chooses
 * them, and they MUST be unique within one result. Gantry makes one per input request
 * (`elicitation-1`, `sampling-2`, `roots-3`: the kind and the request's place in the call,
 * and `url-…` for the URL elicitations of a thrown `UrlElicitationRequiredError`); a handler
 * may choose its own with the `key` option of `ctx.elicit()`, `ctx.sample()`, `ctx.roots()`
 * and `ctx.elicitUrl()`, so that a client can answer a named question.
 */

/** The prefix of the keys that stand for a thrown `UrlElicitationRequiredError` (consent only, never replayed). */
export const URL_KEY = 'url-';

/** The keys Gantry makes: a chosen key of this form could be taken for one of them on a retry. */
const GENERATED = /^(?:(?:elicitation|sampling|roots)-\d+$|url-)/;

/** The key Gantry gives the `index`-th (from 1) input request of a call, of `method`. */
export function generatedInputKey(method: string, index: number): string {
  return `${method.split('/')[0]}-${index}`;
}

/** The method of an input request named by a key Gantry made (states issued without `methods`). */
export function methodOfGeneratedKey(key: string): string | undefined {
  if (key.startsWith('elicitation-') || key.startsWith(URL_KEY)) return Method.ElicitationCreate;
  if (key.startsWith('sampling-')) return Method.SamplingCreateMessage;
  if (key.startsWith('roots-')) return Method.RootsList;
  return undefined;
}

/**
 * Checks a handler's `key` option (`what` names the call, e.g. `ctx.elicit()`): undefined, or
 * a non-empty string not of the form of the keys Gantry makes. Throws a `TypeError` naming the
 * problem; the same in both eras, so a bad key fails the tests of either.
 */
export function checkInputKey(key: unknown, what: string): void {
  if (key === undefined) return;
  if (typeof key !== 'string' || key === '') {
    throw new TypeError(
      `${what}: the key option must be a non-empty string (the input request's key in an input_required result), got ${JSON.stringify(key) ?? String(key)}`,
    );
  }
  if (GENERATED.test(key)) {
    throw new TypeError(
      `${what}: the key ${JSON.stringify(key)} has the form of the keys Gantry makes itself (elicitation-N, sampling-N, roots-N, url-…); choose another, e.g. "user_name"`,
    );
  }
}
