import type { Command } from 'commander';
import { ADDABLE_TRANSPORTS, type AddResult, addTransport } from '../scaffold/add-transport';

interface AddFlags {
  main?: string;
  install: boolean;
}

/** What `gantry add` prints: the files, the main.ts edit or the lines to add by hand, and how to start it. */
export function describeAdd(result: AddResult): string {
  const lines = [`created ${result.created}`, `updated package.json: ${result.manifestChanges.join(', ')}`];
  if (result.reason === undefined) {
    lines.push(
      `updated ${result.main}: ${result.flag} serves ${result.label}; without it, what it served before`,
    );
  } else {
    lines.push(
      `note: ${result.main} was not edited, because ${result.reason}.`,
      'Add it yourself: the import',
      `  ${result.manualLines?.[0]}`,
      'and the branch that chooses the transport',
      `  ${result.manualLines?.[1]}`,
    );
  }
  lines.push(
    result.installed
      ? 'installed dependencies (npm install)'
      : 'run npm install before building (--no-install)',
    '',
    `Serve it over ${result.label} on ${result.url} (PORT and HOST change the address):`,
    `  npm run build && node dist/main.js ${result.flag}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `gantry add http|ws`. */
export function registerAddCommand(program: Command): void {
  program
    .command('add')
    .description('Add a transport (http or ws) to a project: main.ts, package.json, npm install')
    .argument('<transport>', ADDABLE_TRANSPORTS.join(' or '))
    .option('--main <path>', 'the file that starts the app (default: src/main.ts)')
    .option('--no-install', 'do not run npm install')
    .addHelpText(
      'after',
      `
Run it inside a project. "gantry add http" writes src/serve-http.ts (Streamable HTTP on
$HOST:$PORT, default 127.0.0.1:3000, path /mcp), and adds to src/main.ts, before app.listen(...):
  if (process.argv.includes('--http')) return serveHttp(app);
so "node dist/main.js" serves what it did before and "node dist/main.js --http" serves HTTP.
package.json gets @gantry/fastify (from the project's vendor/, where gantry new packed it) and
fastify; "gantry add ws" does the same with src/serve-ws.ts, --ws, @gantry/ws and ws. When
main.ts cannot be edited safely, it prints the lines to add.`,
    )
    .action(async (transport: string, flags: AddFlags) => {
      const result = await addTransport({
        transport,
        main: flags.main,
        install: flags.install,
        cwd: process.cwd(),
      });
      process.stdout.write(describeAdd(result));
    });
}
