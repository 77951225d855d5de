import type { IncomingHttpHeaders } from 'node:http';
import type { TransportInfo } from '@gantry/core';

/** Stateless-era exchanges and session-less POSTs: HTTP over TCP (OpenTelemetry `network.*`). */
export const HTTP_TRANSPORT: TransportInfo = Object.freeze({ network: 'tcp', protocol: 'http' });

/** The transport of an HTTP session (`mcp.session.id` when it has an id). */
export function httpTransport(sessionId: string | undefined): TransportInfo {
  return sessionId === undefined ? HTTP_TRANSPORT : { network: 'tcp', protocol: 'http', sessionId };
}

type Message = { method?: unknown; id?: unknown; params?: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Lets the W3C `traceparent` / `tracestate` headers of a POST (W3C Trace Context §2) parent the
 * requests it carries: copied into each request's `params._meta` that has no `traceparent` of its
 * own, before the engine sees the message. `_meta` wins: the conventions make the MCP message's
 * context the parent, independent of the transport's (semantic-conventions-genai, mcp.md
 * §Context propagation). Copying, rather than a side channel, serves both eras and every HTTP
 * route alike: a session-era POST reaches the engine through the session's Peer, which carries
 * nothing but the message. A request with malformed params is left alone for the engine to refuse.
 */
export function adoptTraceHeaders(body: unknown, headers: IncomingHttpHeaders): void {
  const traceparent = headers.traceparent;
  if (typeof traceparent !== 'string') return;
  const state = headers.tracestate;
  const tracestate = Array.isArray(state) ? state.join(',') : state;
  if (Array.isArray(body)) for (const message of body) adopt(message, traceparent, tracestate);
  else adopt(body, traceparent, tracestate);
}

function adopt(message: unknown, traceparent: string, tracestate: string | undefined): void {
  if (!isRecord(message) || typeof message.method !== 'string' || message.id === undefined) return;
  const target = message as Message;
  const params = target.params;
  if (params !== undefined && !isRecord(params)) return;
  const meta = params?._meta;
  if (meta !== undefined && !isRecord(meta)) return;
  if (meta?.traceparent !== undefined) return;
  const carried: Record<string, unknown> = { ...meta, traceparent };
  if (tracestate !== undefined && tracestate !== '') carried.tracestate = tracestate;
  target.params = { ...params, _meta: carried };
}
