// The fuzz driver for Streamable HTTP: each input is one POST (session era: in a session with
// Mcp-Session-Id; 2026-07-28: standalone, with the headers a correct client mirrors from the
// body), checked against the oracle's expectation mapped to HTTP (MCP 2025-11-25 Transports
// §Streamable HTTP, and docs/http.md's status table); some inputs instead break a header, cut
// the body short on a raw socket, or DELETE the session. After each input a probe must succeed.
import type { Agent } from 'node:http';
import { type Era, FuzzCaseGenerator, STATELESS_VERSION, statelessMeta } from './fuzz-cases';
import { exchange, type HttpAnswer, keepAliveAgent, truncatedRequest } from './http-exchange';
import { answerProblem, batchProblems, type Expectation, expectationFor } from './oracle';
import { fuzzSeed, Prng } from './prng';
import { emptyFigures, type LaneFigures, noteExample } from './results';
import { HANG_MS } from './stream-lane';

export interface HttpLaneOptions {
  name: string;
  era: Era;
  /** Session era: the version initialize asks for (2025-03-26: batches are allowed). */
  protocolVersion?: string;
  url: string;
  inputs: number;
  budgetMs: number;
  bodyLimit: number;
  rss(): number;
  seedOffset: number;
}

const MAX_HANGS = 3;
const ACCEPT = 'application/json, text/event-stream';

/** A header value as 2026-07-28 sends it: plain visible ASCII, else `=?base64?…?=`. */
function headerValue(text: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !/^=\?base64\?.*\?=$/.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** The Mcp-Method and Mcp-Name headers a correct 2026-07-28 client derives from the body. */
function mirroredHeaders(bytes: Buffer, origin?: { method: string; name?: string }): Record<string, string> {
  let method = origin?.method;
  let name = origin?.name;
  try {
    const message = JSON.parse(bytes.toString('utf8'));
    if (
      message &&
      typeof message === 'object' &&
      !Array.isArray(message) &&
      typeof message.method === 'string'
    ) {
      method = message.method;
      const params = message.params;
      const named =
        params && typeof params === 'object'
          ? message.method === 'resources/read'
            ? params.uri
            : params.name
          : undefined;
      name =
        ['tools/call', 'prompts/get', 'resources/read'].includes(message.method) && typeof named === 'string'
          ? named
          : undefined;
    }
  } catch {
    // not JSON: mirror what the message was made from
  }
  const headers: Record<string, string> = {};
  // Mcp-Method is sent as it is (the base64 form is for Mcp-Name and Mcp-Param-*); a method no
  // header can carry is left out, and the server must say the header is missing.
  if (method !== undefined && /^[\x20-\x7e]*$/.test(method)) headers['mcp-method'] = method;
  if (name !== undefined) headers['mcp-name'] = headerValue(name);
  return headers;
}

type HeaderFault = {
  label: string;
  headers: Record<string, string | undefined>;
  status: number;
  method?: string;
  body?: 'ping' | 'none';
};

/** Broken headers on an otherwise valid request, and the status each must get. */
function headerFaults(era: Era): HeaderFault[] {
  const common: HeaderFault[] = [
    { label: 'Content-Type text/plain', headers: { 'content-type': 'text/plain' }, status: 415 },
    { label: 'no Content-Type', headers: { 'content-type': undefined }, status: 415 },
    { label: 'Accept without text/event-stream', headers: { accept: 'application/json' }, status: 406 },
    { label: 'foreign Host', headers: { host: 'evil.example' }, status: 403 },
    { label: 'foreign Origin', headers: { origin: 'http://evil.example' }, status: 403 },
    {
      label: 'Origin whose name starts with 127.',
      headers: { origin: 'http://127.0.0.1.evil.example' },
      status: 403,
    },
    {
      label: 'unsupported MCP-Protocol-Version',
      headers: { 'mcp-protocol-version': '1999-01-01' },
      status: 400,
    },
  ];
  if (era === 'session') {
    return [
      ...common,
      { label: 'no Mcp-Session-Id', headers: { 'mcp-session-id': undefined }, status: 400 },
      {
        label: 'unknown Mcp-Session-Id',
        headers: { 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAAAA' },
        status: 404,
      },
      {
        label: 'GET without text/event-stream',
        headers: { accept: 'application/json' },
        status: 406,
        method: 'GET',
        body: 'none',
      },
    ];
  }
  return [
    ...common,
    { label: 'Mcp-Method that differs from the body', headers: { 'mcp-method': 'tools/list' }, status: 400 },
    { label: 'no Mcp-Method', headers: { 'mcp-method': undefined }, status: 400 },
    {
      label: 'GET in 2026-07-28',
      headers: { accept: 'text/event-stream' },
      status: 405,
      method: 'GET',
      body: 'none',
    },
  ];
}

export class HttpFuzzLane {
  readonly figures: LaneFigures;
  private readonly agent: Agent = keepAliveAgent();
  private readonly url: URL;
  private sessionId?: string;
  private probes = 0;
  private current = '';

  constructor(private readonly options: HttpLaneOptions) {
    this.figures = emptyFigures(options.name, 'http');
    this.figures.seed = fuzzSeed();
    this.url = new URL(options.url);
  }

  private violation(line: string): void {
    this.figures.violations++;
    noteExample(this.figures, `violation after ${this.current}: ${line}`);
  }

  private baseHeaders(): Record<string, string> {
    if (this.options.era === 'stateless')
      return {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-protocol-version': STATELESS_VERSION,
      };
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    return headers;
  }

  private async post(body: Buffer, extra: Record<string, string | undefined> = {}, method = 'POST') {
    const headers: Record<string, string> = this.baseHeaders();
    for (const [key, value] of Object.entries(extra)) {
      if (value === undefined) delete headers[key];
      else headers[key] = value;
    }
    this.figures.messages++;
    return exchange({
      url: this.url,
      method,
      headers,
      body: method === 'POST' ? body : undefined,
      agent: this.agent,
      timeoutMs: HANG_MS,
    });
  }

  private async initialize(): Promise<void> {
    this.sessionId = undefined;
    const init = {
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: this.options.protocolVersion ?? '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'reliability-fuzzer', version: '1.0.0' },
      },
    };
    const outcome = await this.post(Buffer.from(JSON.stringify(init)));
    const id = outcome.kind === 'answer' ? outcome.answer.headers['mcp-session-id'] : undefined;
    if (typeof id !== 'string')
      throw new Error(`${this.options.name}: initialize failed: ${JSON.stringify(outcome).slice(0, 300)}`);
    this.sessionId = id;
    await this.post(Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}'));
  }

  /** The liveness probe: ping in the session, server/discover in 2026-07-28. */
  private async probe(): Promise<void> {
    const id = `p${++this.probes}`;
    const message =
      this.options.era === 'session'
        ? { jsonrpc: '2.0', id, method: 'ping' }
        : { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: statelessMeta() } };
    const extra = this.options.era === 'session' ? {} : { 'mcp-method': 'server/discover' };
    const outcome = await this.post(Buffer.from(JSON.stringify(message)), extra);
    if (outcome.kind === 'hang') return this.hang(`probe ${id} not answered`);
    if (outcome.kind === 'error') return this.crash(`probe ${id}: ${outcome.error.message}`);
    const [response] = outcome.answer.messages;
    const problem =
      outcome.answer.status === 200
        ? answerProblem({ kind: 'answer', id, codes: new Set(), result: true }, response)
        : `status ${outcome.answer.status}`;
    if (problem)
      this.violation(
        `the liveness probe failed: ${problem} ${JSON.stringify(outcome.answer.messages).slice(0, 200)}`,
      );
  }

  private hang(line: string): void {
    this.figures.hangs++;
    noteExample(this.figures, `hang after ${this.current}: ${line}`);
  }

  private crash(line: string): void {
    this.figures.crashes++;
    noteExample(this.figures, `crash after ${this.current}: ${line}`);
  }

  /** Checks one HTTP answer against the oracle's expectation for its body. */
  private check(expect: Expectation, answer: HttpAnswer, bytes: Buffer): void {
    const { status, messages } = answer;
    const text = `${status} ${answer.raw ?? JSON.stringify(messages)}`.slice(0, 240);
    if (status >= 500) return this.violation(`server error ${text}`);
    if (bytes.length > this.options.bodyLimit) {
      if (status !== 413) this.violation(`a body over bodyLimit got ${text}, expected 413`);
      return;
    }
    if (answer.raw !== undefined) return this.violation(`a body that is neither JSON nor SSE: ${text}`);
    const responses = messages.filter((m) => !(m && typeof m === 'object' && 'method' in m));
    if (expect.kind === 'silent') {
      if (status !== 202 || responses.length > 0) this.violation(`expected 202 and no body, got ${text}`);
      return;
    }
    if (expect.kind === 'maybe') {
      if (status === 202) return;
      const id = (responses[0] as { id?: unknown } | undefined)?.id === null ? null : expect.id;
      const problem =
        status >= 400 && responses.length === 1
          ? answerProblem({ kind: 'answer', id, codes: new Set([-32600]), result: false }, responses[0])
          : `got ${text}`;
      if (problem) this.violation(`expected 202 or a -32600 error: ${problem}`);
      return;
    }
    if (expect.kind === 'answer') {
      if (responses.length !== 1)
        return this.violation(`expected one answer for id ${JSON.stringify(expect.id)}, got ${text}`);
      const response = responses[0] as { id: unknown; error?: unknown };
      // An HTTP error status carries its error without an id when the server cannot tell it (docs/http.md).
      const expected = status >= 400 && response?.id === null ? { ...expect, id: null } : expect;
      const problem = answerProblem(expected, response);
      if (problem) this.violation(`${problem} (HTTP ${status})`);
      else if (status !== 200 && !(status >= 400 && response.error))
        this.violation(`status ${status} for ${text}`);
      return;
    }
    if (expect.kind === 'batch') {
      if (status === 202 && !expect.entries.some((e) => e.kind === 'answer')) return;
      const array =
        responses.length === 1 && Array.isArray(responses[0]) ? (responses[0] as unknown[]) : undefined;
      if (status !== 200 || !array) return this.violation(`a batch expected 200 with an array, got ${text}`);
      for (const problem of batchProblems(expect.entries, array)) this.violation(problem);
    }
  }

  private async headerFault(fault: HeaderFault): Promise<void> {
    this.current = `header fault (${fault.label})`;
    const body = Buffer.from(
      JSON.stringify(
        this.options.era === 'session'
          ? { jsonrpc: '2.0', id: 'h', method: 'ping' }
          : { jsonrpc: '2.0', id: 'h', method: 'server/discover', params: { _meta: statelessMeta() } },
      ),
    );
    const mirrored =
      this.options.era === 'stateless' && fault.method !== 'GET' ? { 'mcp-method': 'server/discover' } : {};
    const outcome = await this.post(body, { ...mirrored, ...fault.headers }, fault.method ?? 'POST');
    if (outcome.kind === 'hang') return this.hang(fault.label);
    if (outcome.kind === 'error') return this.crash(`${fault.label}: ${outcome.error.message}`);
    if (outcome.answer.status !== fault.status)
      this.violation(
        `${fault.label}: HTTP ${outcome.answer.status}, expected ${fault.status}: ${JSON.stringify(outcome.answer.messages).slice(0, 200)}`,
      );
  }

  /** DELETE with Content-Type: application/json and no body ends the session (session era). */
  private async deleteSession(): Promise<void> {
    this.current = 'DELETE with Content-Type and no body';
    const outcome = await this.post(Buffer.alloc(0), {}, 'DELETE');
    if (outcome.kind !== 'answer') return this.crash(`DELETE: ${outcome.kind}`);
    if (outcome.answer.status !== 200) this.violation(`DELETE got ${outcome.answer.status}, expected 200`);
    const after = await this.post(Buffer.from('{"jsonrpc":"2.0","id":"d","method":"ping"}'));
    if (after.kind === 'answer' && after.answer.status !== 404)
      this.violation(`after DELETE the session still answers (${after.answer.status})`);
    await this.initialize();
  }

  async run(): Promise<LaneFigures> {
    const started = Date.now();
    const random = new Prng(fuzzSeed() + this.options.seedOffset);
    const era = this.options.era;
    const generator = new FuzzCaseGenerator(random, {
      era,
      maxFrameBytes: this.options.bodyLimit,
      maxOversized: 2,
    });
    const faults = headerFaults(era);
    let rssFirst: number | undefined;
    let rssLast = 0;
    const sample = () => {
      try {
        rssLast = this.options.rss();
        rssFirst ??= rssLast;
        this.figures.rssPeakMb = Math.max(this.figures.rssPeakMb ?? 0, rssLast / 2 ** 20);
      } catch {
        // the process is gone; the test reports it
      }
    };
    const sampler = setInterval(sample, 1000);
    try {
      if (era === 'session') await this.initialize();
      sample();
      for (let n = 0; n < this.options.inputs; n++) {
        if (Date.now() - started > this.options.budgetMs) {
          this.figures.note = `stopped by its time budget after ${n} of ${this.options.inputs} inputs`;
          break;
        }
        if (this.figures.hangs >= MAX_HANGS) {
          this.figures.note = `stopped after ${MAX_HANGS} hangs`;
          break;
        }
        this.figures.inputs++;
        const roll = random.next();
        if (roll < 0.06) await this.headerFault(random.pick(faults));
        else if (roll < 0.062 && era === 'session') await this.deleteSession();
        else if (roll < 0.064) {
          const input = generator.validRequest(`t${n}`);
          this.current = `input #${n} (truncated body on a raw socket)`;
          this.figures.messages++;
          const cut = await truncatedRequest(
            this.url,
            {
              ...this.baseHeaders(),
              ...(era === 'stateless' ? mirroredHeaders(Buffer.from(JSON.stringify(input.message))) : {}),
            },
            Buffer.from(JSON.stringify(input.message)).subarray(0, 20),
            HANG_MS,
          );
          if (cut.hang) this.hang('the server kept a truncated request open after the client ended it');
          else if (cut.status !== undefined && cut.status >= 500)
            this.violation(`a truncated body got ${cut.status}`);
        } else {
          const input = generator.next(`c${n}`);
          this.current = `input #${n} (${input.kind}: ${input.bytes.subarray(0, 160).toString('latin1')})`;
          const expect = expectationFor(input.bytes, {
            transport: 'http',
            batches: era === 'session' && this.options.protocolVersion === '2025-03-26',
            initialized: era === 'session',
            maxFrameBytes: Number.POSITIVE_INFINITY,
            refusesResponses: era === 'stateless',
          });
          const outcome = await this.post(
            input.bytes,
            era === 'stateless' ? mirroredHeaders(input.bytes, input.origin) : {},
          );
          if (outcome.kind === 'hang') this.hang(`no answer to the POST within ${HANG_MS} ms`);
          else if (outcome.kind === 'error') {
            // A server may answer 413 and close before a body over its limit is sent in full.
            const refused =
              input.bytes.length > this.options.bodyLimit && /EPIPE|ECONNRESET/.test(outcome.error.message);
            if (!refused) this.crash(`the POST failed: ${outcome.error.message}`);
          } else this.check(expect, outcome.answer, input.bytes);
        }
        await this.probe();
      }
    } finally {
      clearInterval(sampler);
      sample();
      this.agent.destroy();
      this.figures.rssGrowthMb = rssFirst === undefined ? undefined : (rssLast - rssFirst) / 2 ** 20;
      this.figures.durationMs = Date.now() - started;
    }
    return this.figures;
  }
}
