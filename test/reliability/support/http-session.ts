// A minimal Streamable HTTP client on the wire for the fault and soak tests: a session
// (initialize, Mcp-Session-Id, DELETE) or stateless 2026-07-28 requests with mirrored headers.
import { type Agent, request } from 'node:http';
import { STATELESS_VERSION, statelessMeta } from './fuzz-cases';
import { exchange, type HttpAnswer, keepAliveAgent } from './http-exchange';
import type { JsonRpcResponse } from './rpc-clients';

const HANG_MS = Number(process.env.REL_HANG_MS ?? 10_000);
const ACCEPT = 'application/json, text/event-stream';
/** Request ids unique across clients, since several may share one session. */
let nextId = 0;

export class HttpMcp {
  sessionId?: string;
  readonly agent: Agent = keepAliveAgent(8);

  constructor(readonly url: URL) {}

  headers(stateless: boolean, method?: string, name?: string): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
    if (stateless) {
      headers['mcp-protocol-version'] = STATELESS_VERSION;
      if (method) headers['mcp-method'] = method;
      if (name) headers['mcp-name'] = name;
    } else if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    return headers;
  }

  async post(message: Record<string, unknown>, stateless = false): Promise<HttpAnswer> {
    const params = (message.params ?? {}) as Record<string, unknown>;
    const name = typeof params.name === 'string' ? params.name : undefined;
    const outcome = await exchange({
      url: this.url,
      method: 'POST',
      headers: this.headers(stateless, message.method as string, name),
      body: Buffer.from(JSON.stringify(message)),
      agent: this.agent,
      timeoutMs: HANG_MS,
    });
    if (outcome.kind === 'hang')
      throw new Error(`POST ${String(message.method)}: no answer within ${HANG_MS} ms`);
    if (outcome.kind === 'error') throw outcome.error;
    return outcome.answer;
  }

  /** A request in the session, or stateless with `_meta`; resolves with its JSON-RPC answer. */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    stateless = false,
  ): Promise<JsonRpcResponse> {
    const withMeta = stateless
      ? { ...params, _meta: { ...statelessMeta(), ...((params._meta as object) ?? {}) } }
      : params;
    const answer = await this.post(
      { jsonrpc: '2.0', id: `h${++nextId}`, method, params: withMeta },
      stateless,
    );
    const response = answer.messages.find((m) => m && typeof m === 'object' && !('method' in m));
    if (!response)
      throw new Error(
        `${method}: HTTP ${answer.status} without an answer: ${answer.raw ?? JSON.stringify(answer.messages)}`,
      );
    return response as JsonRpcResponse;
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<void> {
    this.sessionId = undefined;
    const answer = await this.post({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'reliability', version: '1.0.0' } },
    });
    const id = answer.headers['mcp-session-id'];
    if (answer.status !== 200 || typeof id !== 'string') throw new Error(`initialize: HTTP ${answer.status}`);
    this.sessionId = id;
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async stats(stateless = false): Promise<Record<string, any>> {
    const answer = await this.request('tools/call', { name: 'stats', arguments: {} }, stateless);
    return JSON.parse(answer.result.content[0].text);
  }

  /** Ends the session; resolves with the status. */
  async delete(): Promise<number> {
    const headers = this.headers(false);
    delete headers['content-type']; // no body (the fuzzer checks a DELETE that sends one anyway)
    const outcome = await exchange({
      url: this.url,
      method: 'DELETE',
      headers,
      agent: this.agent,
      timeoutMs: HANG_MS,
    });
    this.sessionId = undefined;
    return outcome.kind === 'answer' ? outcome.answer.status : 0;
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * POSTs `message` and destroys the connection as soon as the first bytes of the body arrive
 * (the SSE stream has started): a client that goes away mid-call.
 */
export function postAndVanish(
  url: URL,
  headers: Record<string, string>,
  message: Record<string, unknown>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(JSON.stringify(message));
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        res.once('data', () => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`POST ${String(message.method)}: no SSE event within ${HANG_MS} ms`));
    }, HANG_MS);
    req.on('close', () => clearTimeout(timer));
    req.on('error', () => {});
    req.end(body);
  });
}
