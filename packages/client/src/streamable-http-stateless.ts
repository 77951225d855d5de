// The stateless era over Streamable HTTP (MCP 2026-07-28, Basic / Transports §"Streamable
// HTTP"): one POST per request with the request-metadata headers, no session, no GET stream
// and no resumption.
import {
  ErrorCode,
  encodeHeaderValue,
  isJSONRPCErrorResponse,
  type JSONRPCErrorObject,
  type JSONRPCRequest,
  MetaKey,
  Method,
  ParseError,
  type RequestId,
} from '@gantry/protocol';
import { readEventStream } from './event-stream-reader';
import { asError, discardBody, excerpt, mediaTypeOf, resolveHeaders } from './http-exchange';
import { type HttpFailureData, type HttpStatusError, isAuthStatus } from './http-status-error';
import { type ParamHeader, paramHeaderValues } from './param-headers';
import { internalError } from './resumable-event-stream';
import { SseParser } from './sse-parser';
import {
  failRequests,
  type HttpCore,
  networkError,
  receiveJson,
  responseIdsIn,
  statusError,
} from './streamable-http-core';

/** Stateless-era requests of one transport: each its own POST, cancelled by aborting it. */
export class StatelessHttpExchange {
  /** Requests in flight: aborting one's controller cancels it. */
  private readonly inflight = new Map<RequestId, AbortController>();
  /** Where the `x-mcp-header` annotations of tools are looked up (the Client installs it). */
  paramHeaders?: (tool: string) => readonly ParamHeader[] | undefined;

  constructor(private readonly core: HttpCore) {}

  /**
   * Cancels a request in flight by aborting its POST, which closes the response stream; the
   * `notifications/cancelled` itself is not sent. False when `requestId` is none of this era's.
   */
  cancel(requestId: RequestId | undefined): boolean {
    const controller = requestId === undefined ? undefined : this.inflight.get(requestId);
    if (!controller || requestId === undefined) return false;
    this.inflight.delete(requestId);
    controller.abort();
    return true;
  }

  /**
   * POSTs one stateless-era request: request-metadata headers, no session, and an answer
   * read once. Settles once the server has answered the headers.
   */
  async post(request: JSONRPCRequest): Promise<void> {
    const core = this.core;
    const headers = await this.headersFor(request);
    const controller = new AbortController();
    this.inflight.set(request.id, controller);
    const signal = AbortSignal.any([controller.signal, core.lifetime]);
    const done = () => {
      if (this.inflight.get(request.id) === controller) this.inflight.delete(request.id);
    };
    let response: Response;
    try {
      response = await core.fetch(core.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal,
      });
    } catch (error) {
      done();
      // Cancelled: the Peer has already settled the request.
      if (controller.signal.aborted) return;
      throw networkError(core, 'POST', error);
    }
    if (!response.ok) {
      const error = await statusError(core, 'POST', response);
      done();
      if (isAuthStatus(error.status)) throw error;
      return failRequests(core, [request.id], statelessErrorObject(error));
    }
    const type = mediaTypeOf(response);
    if (type === 'text/event-stream' && response.body) {
      this.followStream(request.id, response, signal)
        .catch((error) => core.reportError(asError(error)))
        .finally(done);
      return;
    }
    if (type === 'application/json') {
      await receiveJson(core, response, [request.id]).finally(done);
      return;
    }
    done();
    await discardBody(response);
    failRequests(
      core,
      [request.id],
      internalError(
        `The server answered POST ${core.url.href} (${request.method}) with HTTP ${response.status} and ${type ? `Content-Type ${type}` : 'no Content-Type'}; a request must be answered with application/json or text/event-stream (2026-07-28 transports)`,
      ),
    );
  }

  /** The headers of a stateless-era POST (MCP 2026-07-28, Basic / Transports §"Streamable HTTP", request metadata). */
  private async headersFor(request: JSONRPCRequest): Promise<Headers> {
    const headers = await resolveHeaders(this.core.headers);
    // No sessions and no resumption in this era, whatever the caller's headers say.
    headers.delete('mcp-session-id');
    headers.delete('last-event-id');
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    const params = request.params ?? {};
    headers.set('mcp-protocol-version', String(params._meta?.[MetaKey.ProtocolVersion]));
    headers.set('mcp-method', request.method);
    const name = mcpNameOf(request.method, params);
    if (name !== undefined) headers.set('mcp-name', encodeHeaderValue(name));
    if (request.method === Method.ToolsCall && typeof params.name === 'string') {
      const annotated = this.paramHeaders?.(params.name);
      if (annotated) {
        for (const [header, value] of paramHeaderValues(annotated, params.arguments))
          headers.set(header, value);
      }
    }
    return headers;
  }

  /**
   * Reads the SSE answer of a stateless-era request until its response: request-scoped
   * notifications (progress, logs) or, for `subscriptions/listen`, the change notifications,
   * until the stream ends. No resumption: a stream that ends or breaks before the response
   * fails the request.
   */
  private async followStream(id: RequestId, response: Response, signal: AbortSignal): Promise<void> {
    const core = this.core;
    const parser = new SseParser({ maxEventChars: core.maxMessageBytes });
    let answered = false;
    let failure: Error | undefined;
    try {
      await readEventStream(response.body!, parser, (event) => {
        if ((event.event === undefined || event.event === 'message') && event.data.trim() !== '') {
          let value: unknown;
          try {
            value = JSON.parse(event.data);
          } catch (error) {
            core.reportError(
              new ParseError(
                `A server-sent event from ${core.url.href} is not JSON (${(error as Error).message}): ${excerpt(event.data, 200)}`,
              ),
            );
            return undefined;
          }
          if (responseIdsIn(value).includes(id)) answered = true;
          core.deliver(value);
        }
        return answered ? false : undefined;
      });
    } catch (error) {
      failure = asError(error);
    }
    if (answered || signal.aborted || !core.isOpen()) return;
    failRequests(
      core,
      [id],
      internalError(
        `The server's SSE answer to POST ${core.url.href} ended before the response${failure ? ` (${failure.message})` : ''}; 2026-07-28 streams cannot be resumed, so the request is lost (send it again)`,
      ),
    );
  }
}

/**
 * What `Mcp-Name` mirrors: `params.name` of `tools/call` and `prompts/get`, `params.uri` of
 * `resources/read`, `params.taskId` of the tasks extension's `tasks/get|update|cancel`.
 */
function mcpNameOf(method: string, params: { [key: string]: unknown }): string | undefined {
  let value: unknown;
  if (method === Method.ToolsCall || method === Method.PromptsGet) value = params.name;
  else if (method === Method.ResourcesRead) value = params.uri;
  else if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel')
    value = params.taskId;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The error a failed stateless-era POST delivers: the JSON-RPC error of the body when there is
 * one (code and data kept, so e.g. −32022's `data.supported` reaches the Client), with the
 * HTTP status and body added to `data`; else −32603.
 */
function statelessErrorObject(error: HttpStatusError): JSONRPCErrorObject {
  let answered: JSONRPCErrorObject | undefined;
  try {
    const value: unknown = JSON.parse(error.body);
    if (isJSONRPCErrorResponse(value)) answered = value.error;
  } catch {
    // Not JSON: the status says enough.
  }
  const failure: HttpFailureData = { httpStatus: error.status, body: error.body };
  const own = answered?.data;
  const data =
    typeof own === 'object' && own !== null && !Array.isArray(own) ? { ...own, ...failure } : failure;
  return { code: answered?.code ?? ErrorCode.InternalError, message: error.message, data };
}
