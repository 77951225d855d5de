import { ConnectionClosedError, RequestTimeoutError } from '@gantry/protocol';
import { connectError } from '../src/connect-error';
import { ExitCode } from '../src/exit-codes';
import { parseTarget } from '../src/target';

// The errors are built with the messages the client's transports produce (their own tests pin
// those); commands.int.spec.ts meets the same failures from real servers.

const SSE_404 =
  'POST initialize answered HTTP 404, so this is not a Streamable HTTP endpoint, and the HTTP+SSE fallback failed too: HTTP 404 Not Found from GET http://127.0.0.1:3000/: Not Found';

describe('connectError', () => {
  it('names the target once, even when the client message names it too', () => {
    const error = connectError(
      parseTarget('http://127.0.0.1:3000/mcp'),
      new ConnectionClosedError(
        `Cannot connect to http://127.0.0.1:3000/mcp: ${SSE_404.replace('HTTP 404', 'HTTP 405')}`,
      ),
    );
    expect(error.exitCode).toBe(ExitCode.Connection);
    expect(error.message).toBe(
      `cannot connect to http://127.0.0.1:3000/mcp: ${SSE_404.replace('HTTP 404', 'HTTP 405')}`,
    );
    expect(error.message).not.toMatch(/Cannot connect/);
  });

  describe('an http(s) URL without /mcp answering 404', () => {
    it.each([
      ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/', 'http://127.0.0.1:3000/mcp'],
      ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000/', 'http://127.0.0.1:3000/mcp'],
      ['https://example.com/api/?x=1', 'https://example.com/api/?x=1', 'https://example.com/api/mcp'],
    ])('%s suggests %s', (text, shown, suggestion) => {
      const target = parseTarget(text);
      const error = connectError(target, new ConnectionClosedError(`Cannot connect to ${text}: ${SSE_404}`));
      expect(error.message).toBe(
        `cannot connect to ${shown}: ${SSE_404}\n(nothing serves MCP at ${new URL(text).pathname}; Gantry serves it at /mcp by default: try ${suggestion})`,
      );
    });

    it('suggests nothing when the path already ends with /mcp', () => {
      const error = connectError(
        parseTarget('http://127.0.0.1:3000/mcp'),
        new ConnectionClosedError(`Cannot connect to http://127.0.0.1:3000/mcp: ${SSE_404}`),
      );
      expect(error.message).toBe(`cannot connect to http://127.0.0.1:3000/mcp: ${SSE_404}`);
    });
  });

  describe('a ws:// URL refused', () => {
    const ws = parseTarget('ws://127.0.0.1:3000/mcp');

    it('by a Streamable HTTP endpoint says it does not accept WebSocket and offers http://', () => {
      const body =
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not Acceptable: the Accept header must list text/event-stream"}}';
      const error = connectError(
        ws,
        new ConnectionClosedError(`WebSocket upgrade refused with HTTP 406: ${body}`),
      );
      expect(error.exitCode).toBe(ExitCode.Connection);
      expect(error.message).toBe(
        'cannot connect to ws://127.0.0.1:3000/mcp: the endpoint does not accept WebSocket (it answered the upgrade with HTTP 406, as an MCP endpoint over HTTP does)\n(it serves MCP over HTTP: try http://127.0.0.1:3000/mcp)',
      );
    });

    it('offers https:// for wss://', () => {
      const error = connectError(
        parseTarget('wss://example.com/mcp'),
        new ConnectionClosedError(
          'WebSocket upgrade refused with HTTP 405: {"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Method not allowed"}}',
        ),
      );
      expect(error.message).toMatch(/\n\(it serves MCP over HTTP: try https:\/\/example\.com\/mcp\)$/);
    });

    it('by another HTTP server says so with its answer, and suggests /mcp on a 404', () => {
      const error = connectError(
        parseTarget('ws://127.0.0.1:3000/'),
        new ConnectionClosedError('WebSocket upgrade refused with HTTP 404: Not Found'),
      );
      expect(error.message).toBe(
        'cannot connect to ws://127.0.0.1:3000/: the endpoint does not accept WebSocket (it answered the upgrade with HTTP 404: Not Found)\n(Gantry serves MCP at /mcp by default: try ws://127.0.0.1:3000/mcp)',
      );
    });

    it('for credentials keeps the credentials hint', () => {
      const error = connectError(
        ws,
        new ConnectionClosedError('WebSocket upgrade refused with HTTP 401: token expired'),
      );
      expect(error.message).toBe(
        "cannot connect to ws://127.0.0.1:3000/mcp: WebSocket upgrade refused with HTTP 401: token expired\n(the server wants credentials: pass --oauth to sign in, or --token <token> or --header 'Authorization: …')",
      );
    });

    it('with a server error (5xx) reports it as it is', () => {
      const error = connectError(ws, new ConnectionClosedError('WebSocket upgrade refused with HTTP 503'));
      expect(error.message).toBe(
        'cannot connect to ws://127.0.0.1:3000/mcp: WebSocket upgrade refused with HTTP 503',
      );
    });
  });

  it('hints at --timeout and --server-stderr for a stdio server that never answers', () => {
    const error = connectError(parseTarget('node server.js'), new RequestTimeoutError('initialize', 300));
    expect(error.message).toBe(
      'cannot connect to "node server.js": Request "initialize" timed out after 300 ms\n(is it an MCP server on stdio? raise --timeout if it starts slowly; --server-stderr shows its output)',
    );
  });
});
