// `WWW-Authenticate` as RFC 9110 §11.6.1 defines it: one or more challenges, each a scheme and
// either a token68 or comma-separated auth-params whose values are tokens or quoted strings.
import type { AuthChallenge } from './types';

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

/**
 * Every challenge in `header` (one header value, or several joined with `, ` as `Headers.get`
 * does). Schemes and parameter names are lower-cased; malformed parts are skipped rather than
 * guessed at, so a hostile header yields fewer challenges, never wrong ones.
 */
export function parseWwwAuthenticate(header: string | null | undefined): AuthChallenge[] {
  if (!header) return [];
  const challenges: AuthChallenge[] = [];
  const text = header;
  let i = 0;

  const skip = (pattern: RegExp) => {
    while (i < text.length && pattern.test(text[i])) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < text.length && TOKEN_CHAR.test(text[i])) i++;
    return text.slice(start, i);
  };
  const quoted = (): string | undefined => {
    // At the opening quote.
    let value = '';
    for (i++; i < text.length; i++) {
      const c = text[i];
      if (c === '\\' && i + 1 < text.length) value += text[++i];
      else if (c === '"') {
        i++;
        return value;
      } else value += c;
    }
    return undefined; // unterminated
  };
  /** True when an auth-param (`name = …`) starts at i. */
  const paramAhead = (): boolean => {
    const save = i;
    const name = token();
    skip(/[ \t]/);
    const isParam = name !== '' && text[i] === '=' && text[i + 1] !== '=';
    i = save;
    return isParam;
  };
  const toNextComma = () => {
    while (i < text.length && text[i] !== ',') i++;
  };

  while (i < text.length) {
    skip(/[ \t,]/);
    if (i >= text.length) break;
    const scheme = token();
    if (scheme === '') {
      toNextComma();
      continue;
    }
    const params: Record<string, string> = {};
    skip(/[ \t]/);
    if (!paramAhead() && i < text.length && text[i] !== ',') {
      // token68 (e.g. `Negotiate abc==`): kept whole under an empty name.
      const start = i;
      while (i < text.length && TOKEN68_CHAR.test(text[i])) i++;
      while (text[i] === '=') i++;
      if (i > start) params[''] = text.slice(start, i);
      toNextComma();
    } else {
      for (;;) {
        skip(/[ \t]/);
        if (!paramAhead()) break;
        const name = token().toLowerCase();
        skip(/[ \t]/);
        i++; // '='
        skip(/[ \t]/);
        const value = text[i] === '"' ? quoted() : token();
        if (value === undefined) break;
        if (!(name in params)) params[name] = value;
        skip(/[ \t]/);
        if (text[i] !== ',') break;
        i++;
        skip(/[ \t,]/);
      }
    }
    challenges.push({ scheme: scheme.toLowerCase(), params });
  }
  return challenges;
}

/** The first `Bearer` challenge, or undefined. */
export function bearerChallenge(challenges: readonly AuthChallenge[]): AuthChallenge | undefined {
  return challenges.find((challenge) => challenge.scheme === 'bearer');
}
