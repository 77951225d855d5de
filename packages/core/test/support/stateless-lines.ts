// The answer lines a stateless-era (2026-07-28) request gets from a server, as wire tests
// expect them: every result carries the server's info in `_meta`; a requestState is opaque.

/** The `_meta` of every result of the server `name` (version 1.0.0). */
export function serverInfoMeta(name: string): Record<string, unknown> {
  return { 'io.modelcontextprotocol/serverInfo': { name, version: '1.0.0' } };
}

/** `complete` and `inputRequired` answer lines of a server whose results carry `meta`. */
export function statelessLines(meta: Record<string, unknown>) {
  return {
    complete(id: number | string, result: Record<string, unknown>) {
      return { jsonrpc: '2.0', id, result: { ...result, resultType: 'complete', _meta: meta } };
    },
    inputRequired(id: number | string, inputRequests: Record<string, unknown>) {
      return {
        jsonrpc: '2.0',
        id,
        result: {
          resultType: 'input_required',
          inputRequests,
          requestState: expect.any(String),
          _meta: meta,
        },
      };
    },
  };
}
