import { ACCEPT_BOTH, featureServer, INITIALIZE, initSession } from './support';

const json = { 'content-type': 'application/json', accept: ACCEPT_BOTH };

describe('Streamable HTTP status paths (fastify.inject)', () => {
  let server: Awaited<ReturnType<typeof featureServer>>;
  beforeEach(async () => {
    server = await featureServer({ sessions: { max: 3 } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('200: initialize answers with JSON and a session id of at least 128 random bits', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const id = response.headers['mcp-session-id'] as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{24,}$/);
    expect(Buffer.from(id, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(response.json().result.serverInfo).toEqual({ name: 'features', version: '1.0.0' });
  });

  it('a failed initialize leaves no session behind: its id answers 404 and no slot of sessions.max is taken', async () => {
    const app = server.app;
    const before = app.server.sessions.size;
    for (let i = 0; i < 5; i++) {
      const failed = await server.fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: json,
        payload: { ...INITIALIZE, params: { capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      });
      expect(failed.json().error.code).toBe(-32602);
      const id = failed.headers['mcp-session-id'] as string;
      const later = await server.fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...json, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
        payload: { jsonrpc: '2.0', id: 2, method: 'ping' },
      });
      expect(later.statusCode).toBe(404);
    }
    expect(app.server.sessions.size).toBe(before);
    // Five failures, three slots: a good initialize still gets one.
    expect(await initSession(server.fastify)).toMatch(/^[A-Za-z0-9_-]{24,}$/);
  });

  it('202: a notification gets no body', async () => {
    const id = await initSession(server.fastify);
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': id },
      payload: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    });
    expect(response.statusCode).toBe(202);
    expect(response.body).toBe('');
  });

  it('200: a request in a session is answered with JSON', async () => {
    const id = await initSession(server.fastify);
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      payload: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'weather', arguments: { city: 'Rome' } },
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        content: [{ type: 'text', text: '{"city":"Rome","celsius":21.5,"sky":"clear"}' }],
        structuredContent: { city: 'Rome', celsius: 21.5, sky: 'clear' },
      },
    });
  });

  it('400: malformed JSON is a parse error (−32700)', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: '{"jsonrpc":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Unexpected end of JSON input' },
    });
  });

  it('400: a request without a session id', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Bad Request: the Mcp-Session-Id header is required; send initialize first to get one',
      },
    });
  });

  it('400: an unsupported MCP-Protocol-Version', async () => {
    const id = await initSession(server.fastify);
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' },
      payload: { jsonrpc: '2.0', id: 4, method: 'tools/list' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toEqual({
      code: -32022,
      message:
        'Unsupported protocol version: MCP-Protocol-Version "1999-01-01"; supported: 2026-07-28 (earlier revisions: send initialize)',
      data: { supported: ['2026-07-28'], requested: '1999-01-01' },
    });
  });

  it('200: an absent MCP-Protocol-Version is accepted (taken as 2025-03-26), and so is a different supported one', async () => {
    const id = await initSession(server.fastify);
    for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }]) {
      const response = await server.fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...json, 'mcp-session-id': id, ...headers },
        payload: { jsonrpc: '2.0', id: 5, method: 'ping' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    }
  });

  it('400: an invalid JSON-RPC message, with its id when readable', async () => {
    const id = await initSession(server.fastify);
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': id },
      payload: { jsonrpc: '1.0', id: 6, method: 'ping' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32600, message: 'Invalid request: The "jsonrpc" member must be exactly "2.0"' },
    });
  });

  it('400: a batch in a 2025-11-25 session; 200 with an array in a 2025-03-26 session', async () => {
    const stateless = await initSession(server.fastify);
    const refused = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': stateless },
      payload: [{ jsonrpc: '2.0', id: 7, method: 'ping' }],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toBe(
      'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
    );
    const old = await initSession(server.fastify, '2025-03-26');
    const accepted = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': old },
      payload: [
        { jsonrpc: '2.0', id: 8, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/x' },
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'weather', arguments: { city: 'Oslo' } },
        },
      ],
    });
    expect(accepted.statusCode).toBe(200);
    const answers = accepted.json();
    expect(answers.map((a: { id: number }) => a.id).sort()).toEqual([8, 9]);
  });

  it('403: a foreign Host on a loopback connection (DNS rebinding), with a JSON-RPC error', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, host: 'evil.example.com', origin: 'http://evil.example.com' },
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'Invalid Host: evil.example.com (allowed on loopback: localhost, 127.0.0.0/8, [::1]; set the allowedHosts option to accept others)',
      },
    });
  });

  it('403: a foreign Origin with a loopback Host', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, host: '127.0.0.1:3000', origin: 'https://attacker.example' },
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toBe('Invalid Origin: https://attacker.example');
  });

  it('200: loopback Host and Origin with a port are accepted', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' },
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(200);
  });

  it('404: an unknown session id, and a session ended with DELETE', async () => {
    const unknown = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': 'nope' },
      payload: { jsonrpc: '2.0', id: 10, method: 'ping' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toEqual({
      code: -32600,
      message: 'Session not found: it ended or never existed; send initialize to start a new one',
    });
    const id = await initSession(server.fastify);
    const ended = await server.fastify.inject({
      method: 'DELETE',
      url: '/mcp',
      headers: { 'mcp-session-id': id },
    });
    expect(ended.statusCode).toBe(200);
    const after = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': id },
      payload: { jsonrpc: '2.0', id: 11, method: 'ping' },
    });
    expect(after.statusCode).toBe(404);
  });

  it('406: an Accept header without both types', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(406);
    expect(response.json().error).toEqual({
      code: -32600,
      message: 'Not Acceptable: the Accept header must list application/json and text/event-stream',
    });
  });

  it('413: a body over the limit', async () => {
    const small = await featureServer({ bodyLimit: 1024 });
    const response = await small.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: { ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(2000) } },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large: at most 1024 bytes' },
    });
    await small.close();
  });

  it('415: a body that is not JSON', async () => {
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'text/plain', accept: ACCEPT_BOTH },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error).toEqual({
      code: -32600,
      message: 'Unsupported Media Type: send Content-Type: application/json',
    });
  });

  it('503: more sessions than allowed', async () => {
    for (let i = 0; i < 3; i++) await initSession(server.fastify);
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toEqual({
      code: -32603,
      message: 'Service Unavailable: the server is at its limit of 3 sessions; try again later',
    });
  });

  it('409: a second GET stream on the same session', async () => {
    // Covered with real sockets in http-sdk.int.spec.ts (inject cannot hold an SSE stream open); here the GET without a session.
    const response = await server.fastify.inject({
      method: 'GET',
      url: '/mcp',
      headers: { accept: 'text/event-stream' },
    });
    expect(response.statusCode).toBe(400);
  });
});

describe('stateless mode (fastify.inject)', () => {
  it('answers requests without initialize or session id, refuses GET and DELETE with 405', async () => {
    const server = await featureServer({ mode: 'stateless' });
    const listed = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-protocol-version': '2025-11-25' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'weather', arguments: { city: 'Lima' } },
      },
    });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers['mcp-session-id']).toBeUndefined();
    expect(listed.json().result.structuredContent).toEqual({ city: 'Lima', celsius: 21.5, sky: 'clear' });
    const sampling = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'sample_joke', arguments: { topic: 'x' } },
      },
    });
    expect(sampling.json().result).toEqual({
      content: [
        {
          type: 'text',
          text: 'ctx.sample(): this server runs stateless HTTP, where each request stands alone and nothing can carry a request to the client and its answer back',
        },
      ],
      isError: true,
    });
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await server.fastify.inject({
        method,
        url: '/mcp',
        headers: { accept: 'text/event-stream' },
      });
      expect(response.statusCode).toBe(405);
    }
    await server.close();
  });
});
