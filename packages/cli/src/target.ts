import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';

/** Where a command finds its server: a process spoken to over stdio, an HTTP or a WebSocket endpoint. */
export type Target =
  | { kind: 'stdio'; command: string; args: string[]; text: string }
  | { kind: 'http'; url: URL; text: string }
  | { kind: 'ws'; url: URL; text: string };

/** Words a POSIX shell would treat as operators; without a shell they would become arguments. */
const SHELL_OPERATORS = new Set(['|', '||', '&', '&&', ';', '<', '>', '>>', '2>', '2>&1']);
/** `NAME=value` before the command: a shell's environment assignment. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Script files run with this Node, so `gantry list dist/main.js` works without `node`. */
const NODE_SCRIPT = /\.(?:js|cjs|mjs)$/;
/**
 * `host[:port][/path]`, the host being `localhost`, an IPv4 address, a bracketed IPv6 address
 * or a dotted name ending in a label of letters (a top-level domain: `example.com`, not
 * `python3.11`).
 */
const HOST_AND_REST =
  /^(localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,63})(:\d{1,5})?(\/\S*)?$/;
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** Options of {@link parseTarget}. */
export interface ParseTargetOptions {
  /** Where a relative command is looked for (the server's `--cwd`); default the current directory. */
  readonly cwd?: string;
}

/**
 * Parses the `<target>` argument: `http(s)://` is an HTTP endpoint, `ws(s)://` a WebSocket
 * endpoint, anything else a command line split with {@link splitCommandLine}. A command that
 * looks like a URL without its scheme (`localhost:3000/mcp`) and names no file is refused
 * with the URL to write instead (see {@link schemelessUrl}).
 */
export function parseTarget(text: string, options: ParseTargetOptions = {}): Target {
  const trimmed = text.trim();
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https' || scheme === 'ws' || scheme === 'wss') {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new CliError(`the target ${JSON.stringify(text)} is not a valid URL`, ExitCode.Usage);
    }
    return { kind: scheme.startsWith('ws') ? 'ws' : 'http', url, text: trimmed };
  }
  if (scheme !== undefined) {
    throw new CliError(
      `unsupported target scheme ${scheme}://: use http(s):// for HTTP, ws(s):// for WebSocket, or a command line for stdio`,
      ExitCode.Usage,
    );
  }
  const words = splitCommandLine(text);
  if (words.length === 0) {
    throw new CliError(
      'the target is empty: give a command line ("node dist/main.js"), or an http(s):// or ws(s):// URL',
      ExitCode.Usage,
    );
  }
  const [command, ...args] = words;
  if (ASSIGNMENT.test(command)) {
    const name = command.slice(0, command.indexOf('='));
    throw new CliError(
      `the target starts with the environment assignment ${JSON.stringify(command)}; no shell runs the command, so pass it with --env ${name}=…`,
      ExitCode.Usage,
    );
  }
  const url = schemelessUrl(command);
  if (url !== undefined && !existsSync(resolve(options.cwd ?? process.cwd(), command))) {
    throw new CliError(
      `the target ${JSON.stringify(command)} looks like a URL without its scheme, and no file of that name exists; ` +
        `write ${url.preferred} (or ${url.other}): a target without :// is run as a command over stdio`,
      ExitCode.Usage,
    );
  }
  if (NODE_SCRIPT.test(command)) return { kind: 'stdio', command: process.execPath, args: words, text };
  return { kind: 'stdio', command, args, text };
}

/**
 * The URLs a command word may have meant, when it reads as `host:port[/path]` or
 * `host/path` (`localhost:3000/mcp`, `example.com/mcp`, `127.0.0.1:8080`); undefined for
 * anything a command line holds (`node`, `./server`, `dist/main.js`, `python3.11`, `npx`).
 * A host alone (`example.com`) is not enough: it needs a port or a path. Loopback hosts
 * get `http://` first (local servers rarely have certificates), others `https://`.
 */
export function schemelessUrl(word: string): { preferred: string; other: string } | undefined {
  const match = HOST_AND_REST.exec(word);
  if (!match || (match[2] === undefined && match[3] === undefined)) return undefined;
  const http = `http://${word}`;
  const https = `https://${word}`;
  return LOOPBACK_HOST.test(match[1]) ? { preferred: http, other: https } : { preferred: https, other: http };
}

/**
 * Splits a command line into words the way a POSIX shell does, without running one:
 * blanks separate words; `'…'` is literal; inside `"…"` a backslash escapes only `\ " $` and
 * backquote; elsewhere it escapes any character; backslash-newline continues the line. There
 * is no expansion (`$HOME`, `*`, `~` stay as they are) and no redirection: an unquoted
 * operator (`|`, `&&`, `>`…) is refused, since it would silently become an argument.
 *
 * @example
 * splitCommandLine(`node "my server.js" --name 'a b'`) // ['node', 'my server.js', '--name', 'a b']
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  /** True once the current word has begun, even if empty (`''` is a word). */
  let inWord = false;
  /** True when part of the current word was quoted or escaped: it cannot be an operator. */
  let quoted = false;
  const endWord = () => {
    if (!inWord) return;
    if (!quoted && SHELL_OPERATORS.has(word)) {
      throw new CliError(
        `the target contains the shell operator ${JSON.stringify(word)}, but it is run without a shell; quote it if it is an argument, or wrap the command in sh -c '…'`,
        ExitCode.Usage,
      );
    }
    words.push(word);
    word = '';
    inWord = false;
    quoted = false;
  };

  let i = 0;
  while (i < line.length) {
    const char = line[i];
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      endWord();
      i++;
    } else if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close === -1) throw unterminated('single quote', line);
      word += line.slice(i + 1, close);
      inWord = true;
      quoted = true;
      i = close + 1;
    } else if (char === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw unterminated('double quote', line);
        const inner = line[i];
        if (inner === '"') break;
        if (inner === '\\' && i + 1 < line.length && '\\"$`\n'.includes(line[i + 1])) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
        } else {
          word += inner;
          i++;
        }
      }
      inWord = true;
      quoted = true;
      i++;
    } else if (char === '\\') {
      if (i + 1 >= line.length) {
        throw new CliError(
          `the target ${JSON.stringify(line)} ends with a lone backslash; escape it as \\\\ or quote it`,
          ExitCode.Usage,
        );
      }
      // Backslash-newline is a line continuation: both characters disappear.
      if (line[i + 1] !== '\n') {
        word += line[i + 1];
        inWord = true;
        quoted = true;
      }
      i += 2;
    } else {
      word += char;
      inWord = true;
      i++;
    }
  }
  endWord();
  return words;
}

function unterminated(what: string, line: string): CliError {
  return new CliError(`the target ${JSON.stringify(line)} has an unterminated ${what}`, ExitCode.Usage);
}

/** A one-line name of the target for messages. */
export function describeTarget(target: Target): string {
  return target.kind === 'stdio' ? JSON.stringify(target.text.trim()) : target.url.href;
}

/**
 * Turns `--header 'Name: value'` options and `--token` into a header record. A malformed
 * header, or a token given with an explicit `Authorization` header, is a usage error.
 */
export function parseHeaders(headers: readonly string[], token: string | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(':');
    const name = colon === -1 ? '' : header.slice(0, colon).trim();
    // RFC 9110 §5.1: a field name is a token.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new CliError(`--header needs 'Name: value', got ${JSON.stringify(header)}`, ExitCode.Usage);
    }
    record[name] = header.slice(colon + 1).trim();
  }
  if (token !== undefined) {
    if (Object.keys(record).some((name) => name.toLowerCase() === 'authorization')) {
      throw new CliError('give either --token or an Authorization --header, not both', ExitCode.Usage);
    }
    if (token === '') throw new CliError('--token needs a non-empty token', ExitCode.Usage);
    record.Authorization = `Bearer ${token}`;
  }
  return record;
}

/** Turns `--env KEY=VALUE` options into a record; a missing `=` or an empty key is a usage error. */
export function parseEnvAssignments(assignments: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    if (equals <= 0) {
      throw new CliError(`--env needs KEY=VALUE, got ${JSON.stringify(assignment)}`, ExitCode.Usage);
    }
    record[assignment.slice(0, equals)] = assignment.slice(equals + 1);
  }
  return record;
}
