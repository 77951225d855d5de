import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';

/** A server the client starts itself, over stdio: `command args…` with extra environment variables. */
export interface StdioLaunch {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Only the variables given with `--env`, in the order given. */
  readonly env: Readonly<Record<string, string>>;
}

/** A server that runs on its own, reached at a Streamable HTTP URL. */
export interface UrlLaunch {
  readonly kind: 'url';
  readonly url: string;
  /** Only the headers given with `--header`, in the order given. */
  readonly headers: Readonly<Record<string, string>>;
}

/** How a client reaches the server: what each client's format turns into its own entry. */
export type ServerLaunch = StdioLaunch | UrlLaunch;

/** What `gantry install` writes: a server under a name. */
export interface ServerToInstall {
  readonly name: string;
  readonly launch: ServerLaunch;
}

/**
 * Letters, digits, `-` and `_`: a name every supported client accepts as a key and uses in
 * its tool names (Claude Code prefixes tools with `mcp__<server>__`).
 */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Refuses a `--name` no client would accept, naming the characters that are allowed. */
export function checkServerName(name: string): string {
  if (!SERVER_NAME.test(name)) {
    throw new CliError(
      `--name ${JSON.stringify(name)}: use letters, digits, "-" and "_" (starting with a letter or digit), e.g. --name ${suggestServerName(name)}`,
      ExitCode.Usage,
    );
  }
  return name;
}

/**
 * A server name made from a package name: the scope dropped (`@acme/weather` → `weather`, as
 * `gantry new` names the server), other characters outside the allowed set turned into `-`.
 */
export function serverNameFromPackage(packageName: string): string {
  const unscoped = packageName.startsWith('@')
    ? packageName.slice(packageName.indexOf('/') + 1)
    : packageName;
  return suggestServerName(unscoped);
}

function suggestServerName(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .replace(/-+$/, '');
  return cleaned === '' ? 'server' : cleaned;
}

/** `--env KEY=VALUE`, repeatable: the value may contain `=`; the same key twice is an error. */
export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const key = equals === -1 ? '' : pair.slice(0, equals);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      throw new CliError(
        `--env needs KEY=VALUE with KEY made of letters, digits and "_", got ${JSON.stringify(pair)}`,
        ExitCode.Usage,
      );
    }
    if (Object.hasOwn(env, key)) throw new CliError(`--env ${key} is given twice`, ExitCode.Usage);
    env[key] = pair.slice(equals + 1);
  }
  return env;
}

/**
 * `--header 'Name: value'`, repeatable. The name must be an HTTP token (RFC 9110 §5.1 field
 * names); the same name twice (in any case, field names are case-insensitive) is an error.
 */
export function parseHeaderPairs(headers: readonly string[]): Record<string, string> {
  const parsed: Record<string, string> = {};
  const seen = new Set<string>();
  for (const header of headers) {
    const colon = header.indexOf(':');
    const name = colon === -1 ? '' : header.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new CliError(
        `--header needs 'Name: value' (e.g. --header 'Authorization: Bearer x'), got ${JSON.stringify(header)}`,
        ExitCode.Usage,
      );
    }
    if (seen.has(name.toLowerCase())) throw new CliError(`--header ${name} is given twice`, ExitCode.Usage);
    seen.add(name.toLowerCase());
    parsed[name] = header.slice(colon + 1).trim();
  }
  return parsed;
}

/** `--url`: an absolute http(s) URL; anything else is a usage error naming the problem. */
export function checkServerUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(
      `--url ${JSON.stringify(text)} is not a URL; give one like http://127.0.0.1:3000/mcp`,
      ExitCode.Usage,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(
      `--url ${text}: clients reach a server over Streamable HTTP, so use an http:// or https:// URL`,
      ExitCode.Usage,
    );
  }
  return text;
}

/** True when the object has at least one key: entries leave out empty `env` and `headers`. */
export function hasKeys(record: Readonly<Record<string, string>>): boolean {
  return Object.keys(record).length > 0;
}
