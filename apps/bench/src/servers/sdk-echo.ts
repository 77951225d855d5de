// The official SDK v1, written the way its documentation shows a stdio tool server.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });

server.registerTool(
  'echo',
  { description: 'Echoes its input', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

async function main() {
  const transport = new StdioServerTransport();
  await server.connect(transport);
}

void main();
