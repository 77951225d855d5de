// Helpers for the stateless-era (2026-07-28) HTTP suites: literal request bodies, the
// request-metadata headers, and a small SSE reader for real sockets.
import type { AddressInfo } from 'node:net';
import type { GantryApplication } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { type GantryMcpOptions, gantryMcp } from '../src';

export const V = '2026-07-28';
export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CC = 'io.modelcontextprotocol/clientCapabilities';
export const SUB = 'io.modelcontextprotocol/subscriptionId';
export const SI = 'io.modelcontextprotocol/serverInfo';
export const ACCEPT = 'application/json, text/event-stream';

/** `_meta` of a stateless-era request. */
export function meta(capabilities: object = {}, extra: object = {}): Record<string, unknown> {
  return { [PV]: V, [CC]: capabilities, ...extra };
}

/** A literal stateless-era JSON-RPC request. */
export function rpc(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: object = {},
  extraMeta: object = {},
) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(capabilities, extraMeta) } };
}

/** The request-metadata headers a conforming client sends for `body` (plain values only). */
export function headersFor(
  body: { method: string; params?: Record<string, unknown> },
  extra: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': V,
    'mcp-method': body.method,
  };
  const params = body.params ?? {};
  if (body.method === 'tools/call' || body.method === 'prompts/get')
    headers['mcp-name'] = String(params.name);
  if (body.method === 'resources/read') headers['mcp-name'] = String(params.uri);
  return { ...headers, ...extra };
}

/** Drops the named headers (lower case) from a header set. */
export function without(headers: Record<string, string>, ...names: string[]): Record<string, string> {
  const copy = { ...headers };
  for (const name of names) delete copy[name];
  return copy;
}

/** `=?base64?…?=` of the UTF-8 bytes of `text`. */
export const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

/** POSTs through `fastify.inject` with the headers a conforming client sends (overridable). */
export function injectStateless(
  fastify: FastifyInstance,
  body: { method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = headersFor(body),
  url = '/mcp',
) {
  return fastify.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });
}

/** `_meta` of every stateless-era result of the dual-era fixture. */
export const DUAL_META = { [SI]: { name: 'dual-era', version: '1.0.0' } };

/** A text tool result of the dual-era fixture, as the stateless era answers it. */
export function textResult(id: number | string, text: string) {
  return {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text }], resultType: 'complete', _meta: DUAL_META },
  };
}

/** A Fastify app on a real loopback socket serving `app` at /mcp. */
export async function listenOn(app: GantryApplication, options: Omit<GantryMcpOptions, 'app'> = {}) {
  const fastify: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    fastify,
    base,
    url: `${base}/mcp`,
    /** POSTs `body` with conforming headers (overridable) over the socket. */
    post(
      body: { method: string; params?: Record<string, unknown> },
      headers: Record<string, string> = headersFor(body),
      signal?: AbortSignal,
    ) {
      return fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    },
  };
}

/** One SSE event: its data parsed as JSON, or a comment line. */
export type SseItem = { data: unknown } | { comment: string };

/** Reads an SSE response incrementally, keeping the raw text for assertions on its framing. */
export class SseReader {
  text = '';
  private buffer = '';
  private readonly items: SseItem[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  ended = false;

  constructor(response: Response) {
    this.reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  /** The next data event (comments skipped), or undefined when the stream ended. */
  async next(): Promise<unknown> {
    for (;;) {
      const item = await this.nextItem();
      if (item === undefined) return undefined;
      if ('data' in item) return item.data;
    }
  }

  /** The next event or comment, or undefined when the stream ended. */
  async nextItem(): Promise<SseItem | undefined> {
    while (this.items.length === 0) {
      if (this.ended) return undefined;
      const { value, done } = await this.reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) {
        this.ended = true;
        continue;
      }
      const chunk = this.decoder.decode(value, { stream: true });
      this.text += chunk;
      this.buffer += chunk;
      let end = this.buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6));
        if (data.length > 0) this.items.push({ data: JSON.parse(data.join('\n')) });
        else if (block.startsWith(':')) this.items.push({ comment: block });
        end = this.buffer.indexOf('\n\n');
      }
    }
    return this.items.shift();
  }

  /** Every remaining data event until the stream ends. */
  async rest(): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) out.push(event);
    return out;
  }

  cancel(): Promise<void> {
    return this.reader.cancel().catch(() => undefined);
  }
}
