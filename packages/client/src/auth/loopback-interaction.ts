// The loopback redirect of RFC 8252 §7.3 for a native app (the CLI): listen on a loopback
// address, send the user's browser to the authorization endpoint, and take the one redirect
// that comes back to http://127.0.0.1:<port><path>. §8.3: listen on the loopback address
// only, never on all interfaces; 127.0.0.1 rather than `localhost` (which may resolve
// elsewhere).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openInBrowser } from './browser-opener';
import { AuthorizationError } from './errors';
import type { AuthorizationInteraction } from './types';

/** How long `authorize` waits for the redirect by default: 5 minutes. */
export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 5 * 60_000;

/** Options of {@link loopbackInteraction}. */
export interface LoopbackInteractionOptions {
  /** The port to listen on when no stored redirect URI names one; default 0 (ephemeral). */
  readonly port?: number;
  /** The loopback address; default `127.0.0.1`. */
  readonly host?: '127.0.0.1' | '::1';
  /** The redirect path; default `/callback`. */
  readonly path?: string;
  /** Opens the authorization URL; default: the platform's opener (`xdg-open`, `open`, `start`). */
  readonly open?: (url: URL) => void | Promise<void>;
  /** How long to wait for the redirect; default {@link DEFAULT_AUTHORIZATION_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Where the "Open this URL" line goes; default stderr. */
  readonly log?: (line: string) => void;
}

interface Waiter {
  readonly resolve: (url: URL) => void;
  readonly reject: (error: Error) => void;
}

/**
 * An {@link AuthorizationInteraction} for a CLI: a loopback HTTP listener and the system
 * browser. The URL to open is always printed too, so a user whose browser did not open (a
 * remote shell) can copy it. `redirectUri(preferred)` keeps a stored loopback redirect URI
 * on this host (port and path) when its port is free, so the registration stays valid.
 * Only `127.0.0.1` / `[::1]` URIs are reused: RFC 8252 §8.3 advises against `localhost`.
 *
 * @example
 * ```ts
 * const interaction = loopbackInteraction();
 * const redirectUri = await interaction.redirectUri();
 * const back = await interaction.authorize(authorizationUrl); // http://127.0.0.1:…/callback?code=…
 * await interaction.close();
 * ```
 */
export function loopbackInteraction(options: LoopbackInteractionOptions = {}): AuthorizationInteraction {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/callback';
  const timeoutMs = options.timeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const open = options.open ?? openInBrowser;
  if (!path.startsWith('/')) throw new TypeError(`loopbackInteraction: path "${path}" must start with "/"`);
  if (options.port !== undefined && !isPort(options.port)) {
    throw new TypeError(`loopbackInteraction: port ${options.port} is not an integer from 0 to 65535`);
  }
  if (!(timeoutMs > 0)) throw new TypeError(`loopbackInteraction: timeoutMs ${timeoutMs} must be positive`);

  let server: Server | undefined;
  let redirect: URL | undefined;
  let waiter: Waiter | undefined;

  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const target = redirect;
    if (!target) return answer(response, 503, 'Closed', 'The sign-in listener is closing.');
    // DNS rebinding (RFC 8252 §8.3 keeps the listener local; a page in the browser can still
    // aim a request at it under another name): only the names of this listener are answered.
    if (request.headers.host !== target.host && request.headers.host !== `localhost:${target.port}`) {
      return answer(response, 403, 'Forbidden', 'This listener only answers the sign-in redirect.');
    }
    const url = new URL(request.url ?? '/', target.origin);
    if (url.pathname !== target.pathname) return answer(response, 404, 'Not found', 'Nothing here.');
    if (request.method !== 'GET')
      return answer(response, 405, 'Method not allowed', 'The redirect is a GET.');
    if (!waiter) {
      return answer(response, 404, 'No sign-in waiting', 'No sign-in is waiting for this redirect.');
    }
    const error = url.searchParams.get('error');
    if (error === null)
      answer(response, 200, 'Signed in', 'You can close this tab and return to the terminal.');
    else
      answer(
        response,
        200,
        'Sign-in failed',
        `The authorization server answered: ${error}. Return to the terminal.`,
      );
    waiter.resolve(url);
  };

  async function start(port: number): Promise<Server | undefined> {
    const candidate = createServer(onRequest);
    try {
      await listen(candidate, port, host);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
      throw error;
    }
  }

  return {
    async redirectUri(preferred) {
      if (server && redirect) return redirect.href;
      const wanted = preferred === undefined ? undefined : reusable(preferred, host);
      let chosenPath = path;
      if (wanted) {
        // Any failure on the stored port (in use, or privileged) falls back to a new one: the
        // registration then needs the new URI, which costs a re-registration, not the sign-in.
        server = await start(wanted.port).catch(() => undefined);
        if (server) chosenPath = wanted.pathname;
      }
      if (!server) {
        const port = options.port ?? 0;
        server = await start(port);
        if (!server) {
          throw new AuthorizationError(
            `Port ${port} on ${host} is in use, so the sign-in redirect cannot be received there; ` +
              'free it or choose another port (0 picks a free one)',
          );
        }
      }
      const { port } = server.address() as AddressInfo;
      redirect = new URL(`http://${host === '::1' ? '[::1]' : host}:${port}${chosenPath}`);
      return redirect.href;
    },

    async authorize(authorizationUrl, signal) {
      if (!server || !redirect) {
        throw new Error('loopbackInteraction: call redirectUri() before authorize(), to start the listener');
      }
      if (waiter) throw new Error('loopbackInteraction: a sign-in is already waiting for its redirect');
      if (signal?.aborted) throw cancelled(signal.reason, redirect);
      const target = redirect;

      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const back = new Promise<URL>((resolve, reject) => {
        waiter = { resolve, reject };
        timer = setTimeout(
          () =>
            reject(
              new AuthorizationError(
                `No sign-in came back to ${target.href} within ${describeMs(timeoutMs)}; ` +
                  'open the printed URL in a browser on this machine and sign in, then try again',
              ),
            ),
          timeoutMs,
        );
        onAbort = () => reject(cancelled(signal?.reason, target));
        signal?.addEventListener('abort', onAbort, { once: true });
      });

      log(`Open this URL to sign in: ${authorizationUrl.href}`);
      try {
        await open(authorizationUrl);
      } catch (error) {
        // Not fatal: the URL is printed above, and the user can open it by hand.
        log(`Could not open a browser (${(error as Error).message}); open the URL above yourself.`);
      }

      try {
        return await back;
      } finally {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        waiter = undefined;
      }
    },

    async close() {
      const closing = server;
      server = undefined;
      redirect = undefined;
      waiter?.reject(new AuthorizationError('The sign-in listener closed before the redirect came back'));
      if (!closing) return;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeAllConnections();
      });
    },
  };
}

/** The port and path of a stored redirect URI, when it is a loopback URI on `host` this listener can take. */
function reusable(preferred: string, host: string): { port: number; pathname: string } | undefined {
  let url: URL;
  try {
    url = new URL(preferred);
  } catch {
    return undefined;
  }
  const hostname = url.hostname === '[::1]' ? '::1' : url.hostname;
  if (url.protocol !== 'http:' || hostname !== host || url.port === '' || url.search !== '') return undefined;
  return { port: Number(url.port), pathname: url.pathname };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function answer(response: ServerResponse, status: number, title: string, text: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
  });
  response.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cancelled(reason: unknown, target: URL): AuthorizationError {
  return new AuthorizationError(`Sign-in cancelled while waiting for the redirect to ${target.href}`, {
    cause: reason,
  });
}

function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65_535;
}

function describeMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
