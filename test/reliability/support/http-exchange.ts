// One HTTP exchange with the fixture server over a keep-alive agent, and the reading of its
// body: JSON, or an SSE stream whose `data:` lines carry the messages (MCP 2025-11-25,
// Transports §Streamable HTTP). A timeout here only detects a hang.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The messages the body carried (one for JSON, the `data:` events of an SSE stream). */
  messages: unknown[];
  /** The body when it was neither empty, JSON nor SSE. */
  raw?: string;
}

export type HttpOutcome =
  | { kind: 'answer'; answer: HttpAnswer }
  | { kind: 'hang' }
  | { kind: 'error'; error: Error };

export function keepAliveAgent(maxSockets = 1): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

/** Parses an SSE body into the JSON messages of its events (priming events have no data). */
export function sseMessages(body: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    const text = data.join('\n');
    if (text.trim() !== '') messages.push(JSON.parse(text));
  }
  return messages;
}

export function exchange(options: {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
  agent: Agent;
  timeoutMs: number;
}): Promise<HttpOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const headers: Record<string, string> = { ...options.headers };
    if (options.body) headers['content-length'] = String(options.body.length);
    const req = request(options.url, { method: options.method, headers, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => done({ kind: 'error', error }));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const type = String(res.headers['content-type'] ?? '');
        const answer: HttpAnswer = { status: res.statusCode ?? 0, headers: res.headers, messages: [] };
        try {
          if (text === '') answer.messages = [];
          else if (type.startsWith('text/event-stream')) answer.messages = sseMessages(text);
          else if (type.startsWith('application/json')) answer.messages = [JSON.parse(text)];
          else answer.raw = text;
        } catch {
          answer.raw = text;
        }
        done({ kind: 'answer', answer });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({ kind: 'hang' });
    }, options.timeoutMs);
    req.on('error', (error) => done({ kind: 'error', error }));
    req.end(options.body);
  });
}

/**
 * A request cut short on a raw socket: headers promising more body than is sent, then the
 * client half-closes. The server must end the connection (or answer 4xx), never 5xx or hang.
 */
export function truncatedRequest(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<{ status?: number; hang: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ hang: true });
    }, timeoutMs);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const status = received.match(/^HTTP\/1\.1 (\d{3})/);
      resolve({ status: status ? Number(status[1]) : undefined, hang: false });
    });
    const lines = [
      `POST ${url.pathname} HTTP/1.1`,
      `Host: ${url.host}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      `Content-Length: ${body.length + 100}`,
      'Connection: close',
      '',
      '',
    ];
    socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]));
  });
}
