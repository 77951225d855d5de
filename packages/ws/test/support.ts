import type { GantryApplication } from '@gantry/core';
import { Changes } from '@gantry/testing';
import WebSocket from 'ws';
import { createFeatureApp } from '../../core/test/fixtures/feature-app';
import { type WebSocketOptions, websocket } from '../src';

export async function serve(options: Partial<WebSocketOptions> = {}) {
  const app: GantryApplication = await createFeatureApp();
  const listener = websocket({ port: 0, ...options });
  await app.listen(listener);
  return { app, listener, url: listener.url };
}

/**
 * A raw `ws` client that queues every text frame it receives: WebSocket frames, which the
 * stdio-based `openWire` of `@gantry/testing` cannot carry.
 */
export class RawClient {
  readonly frames: unknown[] = [];
  readonly texts: string[] = [];
  private readonly arrivals = new Changes();
  closed?: Promise<{ code: number; reason: string }>;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      const text = (data as Buffer).toString('utf8');
      this.texts.push(text);
      this.frames.push(isBinary ? data : JSON.parse(text));
      this.arrivals.changed();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
  }

  static async open(url: string, protocols: string[] = ['mcp'], options: WebSocket.ClientOptions = {}) {
    const socket = new WebSocket(url, protocols, options);
    const client = new RawClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  sendText(text: string): void {
    this.socket.send(text, { binary: false });
  }

  /** The next frame whose `id` is `id` (responses), or matching `test`; it is taken out of `frames`. */
  async next(
    test: (frame: Record<string, unknown>) => boolean,
    timeoutMs = 5_000,
  ): Promise<Record<string, unknown>> {
    const find = () => this.frames.findIndex((f) => test(f as Record<string, unknown>));
    await this.arrivals
      .until(() => find() !== -1, { timeoutMs })
      .catch(() => {
        throw new Error(`No matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`);
      });
    // Re-found: another reader woken by the same frame may have taken it meanwhile.
    const index = find();
    if (index === -1) return this.next(test, timeoutMs);
    return this.frames.splice(index, 1)[0] as Record<string, unknown>;
  }

  response(id: unknown) {
    return this.next((f) => f.id === id && ('result' in f || 'error' in f));
  }

  close(): void {
    this.socket.close();
  }
}

/** Performs an upgrade that is expected to fail; resolves with the HTTP status and body. */
export function refusedUpgrade(
  url: string,
  protocols: string[],
  options: WebSocket.ClientOptions = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, options);
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('The upgrade was accepted'));
    });
    socket.once('error', () => {});
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw-ws', version: '1.0.0' },
  },
});

export async function initialized(url: string): Promise<RawClient> {
  const client = await RawClient.open(url);
  client.sendText(INITIALIZE);
  await client.response(1);
  client.sendText('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return client;
}
