import { PassThrough } from 'node:stream';
import {
  type GantryApplication,
  type StdioOptions,
  StdioServerTransport,
  type StdioTransportOptions,
  stdio,
} from '@gantry/core';
import type { AuthInfo } from '@gantry/protocol';

/** A raw line-level connection to an app through its real stdio transport. */
export interface Wire {
  /** Writes raw bytes or a line (a newline is added to strings without one). */
  send(raw: string | Buffer | object): void;
  /** The next line the server wrote, parsed. Fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<any>;
  /** Resolves to true if nothing arrives within `ms` (for "never answered" checks). */
  silentFor(ms: number): Promise<boolean>;
  /** Ends the input stream, as a client closing stdin does. */
  end(): void;
  /** Every line the server wrote so far, parsed, in order (read or not). */
  readonly seen: readonly any[];
  /** The same lines as written, without their newline. */
  readonly raw: readonly string[];
}

export async function openWire(
  app: GantryApplication,
  options: Omit<StdioOptions, 'input' | 'output'> = {},
): Promise<Wire> {
  const input = new PassThrough();
  const output = new PassThrough();
  await app.listen(stdio({ input, output, closeOnEnd: false, ...options }));
  return wireOn(input, output);
}

/**
 * Like `openWire`, but through `app.connect()`, so the connection can carry what an
 * authenticating transport would (`auth`). Still the real stdio transport and framing.
 */
export async function connectWire(
  app: GantryApplication,
  connect: { auth?: AuthInfo } = {},
  options: StdioTransportOptions = {},
): Promise<Wire> {
  const input = new PassThrough();
  const output = new PassThrough();
  await app.connect(new StdioServerTransport(input, output, options), connect);
  return wireOn(input, output);
}

function wireOn(input: PassThrough, output: PassThrough): Wire {
  const lines: string[] = [];
  const seen: any[] = [];
  const raw: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      raw.push(line);
      seen.push(JSON.parse(line));
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
      newline = buffered.indexOf('\n');
    }
  });
  return {
    seen,
    raw,
    send(data) {
      if (Buffer.isBuffer(data)) input.write(data);
      else if (typeof data === 'string') input.write(data.endsWith('\n') ? data : `${data}\n`);
      else input.write(`${JSON.stringify(data)}\n`);
    },
    next(timeoutMs = 5000) {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(JSON.parse(line));
      return new Promise((resolve, reject) => {
        const waiter = (l: string) => {
          clearTimeout(timer);
          resolve(JSON.parse(l));
        };
        const timer = setTimeout(() => {
          // A timed-out reader must not swallow the next line.
          const index = waiters.indexOf(waiter);
          if (index !== -1) waiters.splice(index, 1);
          reject(new Error(`no line from the server within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    async silentFor(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return lines.length === 0;
    },
    end() {
      input.end();
    },
  };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'wire-test', version: '1.0.0' },
  },
};

/** Sends initialize + initialized and returns the initialize response. */
export async function handshake(wire: Wire, protocolVersion = '2025-11-25'): Promise<any> {
  wire.send({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion } });
  const response = await wire.next();
  wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return response;
}
