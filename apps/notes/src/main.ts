import 'reflect-metadata';
import { resolve } from 'node:path';
import { GantryFactory, stdio } from '@gantry/core';
import { AppModule } from './app.module';
import { NotesRepository } from './notes.repository';

async function main(): Promise<void> {
  const app = await GantryFactory.create(AppModule, {
    name: 'gantry-notes',
    title: 'Gantry Notes',
    version: '0.1.0',
    instructions: 'A personal notes store. Search before creating, to avoid duplicates.',
  });
  await app.listen(stdio());
  const entry = resolve(__dirname, 'main.js');
  // stdout carries the protocol: everything for humans goes to stderr.
  process.stderr.write(
    [
      `gantry-notes is serving MCP on stdio (notes in ${app.get(NotesRepository).file}).`,
      'It is meant to be started by an MCP client. To connect one:',
      `  Claude Code:     claude mcp add notes -- node ${entry}`,
      `  MCP Inspector:   npx @modelcontextprotocol/inspector node ${entry}`,
      `  .mcp.json:       { "mcpServers": { "notes": { "command": "node", "args": ["${entry}"] } } }`,
      'Press Ctrl+D (end of input) to stop.',
      '',
    ].join('\n'),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

main().catch((error) => {
  process.stderr.write(
    `gantry-notes failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
