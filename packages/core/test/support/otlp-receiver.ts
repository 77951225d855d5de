// An OTLP/HTTP trace receiver in the test process (OTLP specification, OTLP/HTTP with the
// JSON encoding): exporters POST /v1/traces, and tests wait for the spans they expect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Changes } from '@gantry/testing';

/** One span as OTLP/JSON carries it, with its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP `SpanKind`: 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** OTLP `StatusCode`: 0 unset, 1 ok, 2 error. */
  readonly status: { code?: number; message?: string };
  readonly links: { traceId: string; spanId: string }[];
  /** `service.name` of the resource that exported it. */
  readonly service: unknown;
}

export const OTLP_SERVER = 2;
export const OTLP_CLIENT = 3;

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttribute = { key: string; value: OtlpValue };

function plain(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes) {
    out[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  }
  return out;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`; traces go to `${url}/v1/traces`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Resolves with the spans once `pick` finds them (re-checked on every export). */
  until<T>(pick: (spans: ReceivedSpan[]) => T | undefined, what: string): Promise<T>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const changes = new Changes();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resource of body.resourceSpans ?? []) {
        const service = plain(resource.resource?.attributes)['service.name'];
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: plain(span.attributes),
              status: span.status ?? {},
              links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                traceId: link.traceId,
                spanId: link.spanId,
              })),
              service,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      changes.changed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    until: async (pick, what) => {
      let found: ReturnType<typeof pick>;
      const check = () => {
        found = pick(spans);
        return found !== undefined;
      };
      await changes.until(check, { what, timeoutMs: 10_000 });
      return found as NonNullable<ReturnType<typeof pick>>;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
