// The HTTP floor: what any JSON-over-HTTP endpoint costs at least on Fastify (routing, body
// parsing with Fastify's own JSON parser, serializing the reply), with no MCP logic: every
// request gets a tools/call-shaped result, initialize an initialize-shaped one, and
// notifications an empty 202. No sessions: the driver's Mcp-Session-Id is simply ignored. In the
// observability section (GANTRY_BENCH_OTEL=sdk) each answer is also instrumented the least way
// semantic conventions ask (../otel-floor.ts).
import Fastify from 'fastify';
import { floorInstrumentation } from '../otel-floor';
import { portOf, serveBenchmark } from './harness';

interface Message {
  id?: number | string;
  method?: string;
  params?: { name?: string; protocolVersion?: string; arguments?: { text?: string } };
}

const serverInfo = { name: 'bench-floor-http', version: '1.0.0' };

serveBenchmark(async () => {
  const instrument = await floorInstrumentation('tcp');
  const fastify = Fastify({ logger: false });
  fastify.post('/mcp', async (request, reply) => {
    const message = request.body as Message;
    if (message.id === undefined) return reply.code(202).send();
    const version = request.headers['mcp-protocol-version'];
    return instrument(
      {
        id: message.id,
        method: message.method ?? '',
        tool: message.method === 'tools/call' ? message.params?.name : undefined,
        protocolVersion: typeof version === 'string' ? version : message.params?.protocolVersion,
      },
      () => {
        const result =
          message.method === 'initialize'
            ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo }
            : { content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] };
        return { jsonrpc: '2.0', id: message.id, result };
      },
    );
  });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return portOf(fastify.server.address());
});
