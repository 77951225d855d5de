// What `gantry` says when it cannot connect: one line naming the target and the cause, and a
// hint on the next line when the failure has a likely fix (credentials, a scheme that does not
// match the endpoint, a path without /mcp, a slow server).
import { httpStatusOf } from '@gantry/client';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { describeTarget, type Target } from './target';

/** Where Gantry (and most MCP servers) serve MCP when no path is configured. */
const DEFAULT_MCP_PATH = '/mcp';

/** A connection failure as one message with exit code 3, with a hint where there is one. */
export function connectError(target: Target, error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error);
  // The client's messages may name the URL again ("Cannot connect to <url>: …"): said once.
  const reason = message.replace(/^Connection closed: /, '').replace(/^Cannot connect to \S+: /, '');
  const head = `cannot connect to ${describeTarget(target)}`;
  const status = httpStatusOf(error) ?? statusInMessage(message);

  if (status === 401 || status === 403) {
    return failure(
      `${head}: ${reason}`,
      "the server wants credentials: pass --oauth to sign in, or --token <token> or --header 'Authorization: …'",
    );
  }
  if (target.kind === 'ws') {
    const refusal = upgradeRefusal(message);
    if (refusal && acceptsNoWebSocket(refusal.status)) return noWebSocket(head, target.url, refusal);
  }
  if (target.kind === 'http' && status === 404) {
    const suggestion = withMcpPath(target.url);
    if (suggestion) {
      return failure(
        `${head}: ${reason}`,
        `nothing serves MCP at ${target.url.pathname}; Gantry serves it at ${DEFAULT_MCP_PATH} by default: try ${suggestion}`,
      );
    }
  }
  if (/timed out/.test(message)) {
    return failure(
      `${head}: ${reason}`,
      target.kind === 'stdio'
        ? 'is it an MCP server on stdio? raise --timeout if it starts slowly; --server-stderr shows its output'
        : 'raise --timeout if the server is slow',
    );
  }
  return failure(`${head}: ${reason}`);
}

function failure(text: string, hint?: string): CliError {
  return new CliError(hint === undefined ? text : `${text}\n(${hint})`, ExitCode.Connection);
}

/** The HTTP status a client message names: a refused upgrade, or the POST of `initialize`. */
function statusInMessage(message: string): number | undefined {
  const status =
    upgradeRefusal(message)?.status ?? /POST initialize answered HTTP (\d{3})/.exec(message)?.[1];
  return status === undefined ? undefined : Number(status);
}

interface UpgradeRefusal {
  readonly status: number;
  readonly body: string;
}

/** The status and body of a refused WebSocket upgrade, from the transport's message. */
function upgradeRefusal(message: string): UpgradeRefusal | undefined {
  const match = /^WebSocket upgrade refused with HTTP (\d{3})(?:: ([\s\S]*))?$/.exec(message);
  return match ? { status: Number(match[1]), body: match[2] ?? '' } : undefined;
}

/**
 * True when an answer to the upgrade means "no WebSocket here" (RFC 6455 §4.1: anything but
 * 101 is a refusal): a plain HTTP answer, 2xx–4xx, except the refusals that mean something
 * else (401/403 credentials, 408 and 429 try later). 5xx is the server failing, not refusing.
 */
function acceptsNoWebSocket(status: number): boolean {
  return status < 500 && status !== 401 && status !== 403 && status !== 408 && status !== 429;
}

function noWebSocket(head: string, url: URL, refusal: UpgradeRefusal): CliError {
  const answered = `it answered the upgrade with HTTP ${refusal.status}`;
  if (isJsonRpcError(refusal.body)) {
    // A JSON-RPC error body: an MCP endpoint over HTTP (Streamable HTTP answers a GET without
    // `Accept: text/event-stream` with 406, MCP 2025-11-25 Transports §Listening for Messages).
    const http = new URL(url);
    http.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
    return failure(
      `${head}: the endpoint does not accept WebSocket (${answered}, as an MCP endpoint over HTTP does)`,
      `it serves MCP over HTTP: try ${http.href}`,
    );
  }
  const detail = refusal.body.trim() === '' ? '' : `: ${excerpt(refusal.body.trim())}`;
  const hint =
    refusal.status === 404 && withMcpPath(url) !== undefined
      ? `Gantry serves MCP at ${DEFAULT_MCP_PATH} by default: try ${withMcpPath(url)}`
      : undefined;
  return failure(`${head}: the endpoint does not accept WebSocket (${answered}${detail})`, hint);
}

/** `url` with `/mcp` appended to its path, unless the path already ends with it. */
function withMcpPath(url: URL): string | undefined {
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(DEFAULT_MCP_PATH)) return undefined;
  const suggestion = new URL(url);
  suggestion.pathname = `${path}${DEFAULT_MCP_PATH}`;
  suggestion.search = '';
  suggestion.hash = '';
  return suggestion.href;
}

function isJsonRpcError(body: string): boolean {
  try {
    const value = JSON.parse(body) as { jsonrpc?: unknown; error?: unknown };
    return value?.jsonrpc === '2.0' && typeof value.error === 'object' && value.error !== null;
  } catch {
    return false;
  }
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
