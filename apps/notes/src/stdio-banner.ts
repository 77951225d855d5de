/**
 * What the notes server says on stderr when it serves stdio. Run by hand in a terminal (stdin is
 * a TTY), a newcomer is told that an MCP client is what starts it, and how to connect one; run
 * by a client, stdin is a pipe and one line is enough: it lands in the client's log, where the
 * "how to connect" banner would only be noise on every start.
 */
export function stdioBanner(options: { entry: string; store: string; interactive: boolean }): string {
  const { entry, store } = options;
  const first = `gantry-notes is serving MCP on stdio (notes in ${store}).`;
  if (!options.interactive) return `${first}\n`;
  return [
    first,
    'It is meant to be started by an MCP client. To connect one:',
    `  Claude Code:     claude mcp add notes -- node ${entry}`,
    `  MCP Inspector:   npx @modelcontextprotocol/inspector node ${entry}`,
    `  .mcp.json:       { "mcpServers": { "notes": { "command": "node", "args": ["${entry}"] } } }`,
    'Press Ctrl+D (end of input) to stop.',
    '',
  ].join('\n');
}
