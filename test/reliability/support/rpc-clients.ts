// Small JSON-RPC clients on the raw wire for the fault, soak and notes tests: newline-delimited
// JSON on a child's stdio, and one text frame per message on a WebSocket. Answers are matched
// by id; a timeout only detects a hang.
import WebSocket from 'ws';
import type { ChildServer } from './child-server';
import { statelessMeta } from './fuzz-cases';

export type JsonRpcResponse = {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: any;
  error?: { code: number; message: string };
};

const HANG_MS = Number(process.env.REL_HANG_MS ?? 10_000);

/** Correlates requests and answers over any message pipe. */
abstract class RpcClient {
  /** Every message received, in order. */
  readonly received: Array<Record<string, any>> = [];
  private readonly pending = new Map<string, (response: JsonRpcResponse) => void>();
  private readonly watchers: Array<{ test: (message: Record<string, any>) => boolean; resolve: () => void }> =
    [];
  private nextId = 0;
  protected abstract write(text: string): void;

  protected deliver(text: string): void {
    const message = JSON.parse(text);
    this.received.push(message);
    for (const watcher of [...this.watchers]) {
      if (watcher.test(message)) {
        this.watchers.splice(this.watchers.indexOf(watcher), 1);
        watcher.resolve();
      }
    }
    if (!('method' in message) && message.id !== undefined) {
      const key = JSON.stringify(message.id);
      this.pending.get(key)?.(message);
      this.pending.delete(key);
    }
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.write(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }));
  }

  /** Sends a request; resolves with its answer, rejects after the hang bound. */
  request(
    method: string,
    params: Record<string, unknown> = {},
    id: string | number = `r${++this.nextId}`,
  ): Promise<JsonRpcResponse> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(JSON.stringify(id));
        reject(new Error(`${method} ${id}: no answer within ${HANG_MS} ms`));
      }, HANG_MS);
      timer.unref(); // a call left unanswered on purpose must not keep the test process alive
      this.pending.set(JSON.stringify(id), (response) => {
        clearTimeout(timer);
        resolve(response);
      });
      this.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Resolves when a message matching `test` has arrived (already, or later). */
  until(test: (message: Record<string, any>) => boolean): Promise<void> {
    if (this.received.some(test)) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ test, resolve }));
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<void> {
    const answer = await this.request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'reliability', version: '1.0.0' },
    });
    if (!answer.result) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
    this.notify('notifications/initialized');
  }

  /** The fixture's `stats` tool, parsed; in the stateless era when `stateless` is set. */
  async stats(stateless = false): Promise<Record<string, any>> {
    const params: Record<string, unknown> = { name: 'stats', arguments: {} };
    if (stateless) params._meta = statelessMeta();
    const answer = await this.request('tools/call', params);
    return JSON.parse(answer.result.content[0].text);
  }
}

/** JSON lines on a child's stdin and stdout. */
export class StdioRpcClient extends RpcClient {
  /** Text after the last newline: a partial line when the server stopped mid-message. */
  partial = '';

  constructor(readonly server: ChildServer) {
    super();
    server.child.stdout.setEncoding('utf8');
    server.child.stdout.on('data', (chunk: string) => {
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) if (line !== '') this.deliver(line);
    });
    server.child.stdin.on('error', () => {});
  }

  protected write(text: string): void {
    if (!this.server.child.stdin.destroyed) this.server.child.stdin.write(`${text}\n`);
  }
}

/** One message per text frame on a WebSocket. */
export class WsRpcClient extends RpcClient {
  readonly closed: Promise<number>;

  private constructor(readonly socket: WebSocket) {
    super();
    socket.on('message', (data) => this.deliver(data.toString()));
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
  }

  static open(url: string): Promise<WsRpcClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, ['mcp']);
      socket.once('open', () => resolve(new WsRpcClient(socket)));
      socket.once('error', reject);
    });
  }

  protected write(text: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
  }

  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) {
      this.socket.close();
      await this.closed;
    }
  }
}

/** Polls `check` until it returns true, within the hang bound (a state reached, not a duration). */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + HANG_MS * 2;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${HANG_MS * 2} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
