import { PassThrough } from 'node:stream';
import {
  connectionHostOf,
  type GantryApplication,
  StdioServerTransport,
  type StdioTransportOptions,
} from '@gantry/core';
import type { AuthInfo } from '@gantry/protocol';

/** Options of `openWire`: the stdio transport's own, plus what an authenticating transport would set. */
export interface WireOptions extends Omit<StdioTransportOptions, 'logger' | 'guardStdout'> {
  /** The caller, as an authenticating transport would set it (`ctx.auth`, guards). */
  auth?: AuthInfo;
}

/** `initialize` params for `wire.initialize()`; each has a default. */
export interface WireInitialize {
  /** Default `2025-11-25`. */
  protocolVersion?: string;
  /** Default `{}`. */
  capabilities?: Record<string, unknown>;
  /** Default `{ name: 'wire-test', version: '1.0.0' }`. */
  clientInfo?: { name: string; version: string };
}

/**
 * A raw connection to an app: JSON-RPC lines in and out, through the real stdio transport and
 * its framing (MCP 2025-11-25, Basic / Transports §stdio) over in-memory streams — no process,
 * no socket. For tests of what is on the wire: malformed input, ids, ordering, exact bytes.
 */
export interface Wire {
  /** Writes a message (as JSON), a line (a newline is added when missing), or raw bytes. */
  send(message: object | string | Buffer): void;
  /** The next message the server wrote, parsed. Rejects after `timeoutMs` (default 5000). */
  next(timeoutMs?: number): Promise<any>;
  /**
   * The first message, already written or still to come, for which `predicate` is true; it is
   * taken out, and the messages it passed stay for `next()`. Rejects after `timeoutMs` (default 5000).
   */
  nextMatching(predicate: (message: any) => boolean, timeoutMs?: number): Promise<any>;
  /**
   * Sends `initialize` (id 0) and then `notifications/initialized`; resolves with the
   * `initialize` response.
   */
  initialize(params?: WireInitialize): Promise<any>;
  /**
   * True if the server wrote nothing (not yet read) within `ms`: only for checking that
   * something is never answered, where there is no event to await.
   */
  silentFor(ms: number): Promise<boolean>;
  /** Ends the input, as a client closing the server's stdin does. */
  end(): void;
  /** Closes the connection (in-flight handlers are aborted). */
  close(): Promise<void>;
  /** Every message the server wrote so far, parsed, in order (read or not). */
  readonly seen: readonly any[];
  /** The same lines as written, without their newline. */
  readonly raw: readonly string[];
}

interface Waiter {
  readonly predicate: (message: any) => boolean;
  readonly resolve: (message: any) => void;
}

/**
 * Opens a raw wire to `app` on a fresh connection.
 *
 * @example
 * ```ts
 * const wire = await openWire(app);
 * await wire.initialize();
 * wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
 * expect((await wire.nextMatching((m) => m.id === 1)).result.tools).toHaveLength(2);
 * await wire.close();
 * ```
 */
export async function openWire(app: GantryApplication, options: WireOptions = {}): Promise<Wire> {
  const { auth, ...transportOptions } = options;
  const host = connectionHostOf(app);
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioServerTransport(input, output, { ...transportOptions, logger: host.logger });
  const connection = await host.connect(transport, auth ? { auth } : undefined);

  const unread: any[] = [];
  const seen: any[] = [];
  const raw: string[] = [];
  const waiters: Waiter[] = [];
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const message = JSON.parse(line);
      raw.push(line);
      seen.push(message);
      const index = waiters.findIndex((waiter) => waiter.predicate(message));
      if (index === -1) unread.push(message);
      else waiters.splice(index, 1)[0].resolve(message);
    }
  });

  const nextMatching = (predicate: (message: any) => boolean, timeoutMs = 5000): Promise<any> => {
    const index = unread.findIndex(predicate);
    if (index !== -1) return Promise.resolve(unread.splice(index, 1)[0]);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        // A reader that timed out must not swallow a later message.
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no matching line from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  };

  const wire: Wire = {
    seen,
    raw,
    send(message) {
      if (Buffer.isBuffer(message)) input.write(message);
      else if (typeof message === 'string') input.write(message.endsWith('\n') ? message : `${message}\n`);
      else input.write(`${JSON.stringify(message)}\n`);
    },
    next: (timeoutMs = 5000) =>
      nextMatching(() => true, timeoutMs).catch(() => {
        throw new Error(`no line from the server within ${timeoutMs} ms`);
      }),
    nextMatching,
    async initialize(params = {}) {
      wire.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: params.protocolVersion ?? '2025-11-25',
          capabilities: params.capabilities ?? {},
          clientInfo: params.clientInfo ?? { name: 'wire-test', version: '1.0.0' },
        },
      });
      const response = await nextMatching((message) => message.id === 0 && !('method' in message));
      wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return response;
    },
    async silentFor(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return unread.length === 0;
    },
    end() {
      input.end();
    },
    close: () => connection.close(),
  };
  return wire;
}
