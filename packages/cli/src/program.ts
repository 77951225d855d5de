import { Command } from 'commander';
import { CLI_NAME, CLI_VERSION } from './cli-info';
import { registerAddCommand } from './commands/add';
import { registerAuthCommand } from './commands/auth';
import { registerCallCommand } from './commands/call';
import { registerDevCommand } from './commands/dev';
import { registerGenerateCommand } from './commands/generate';
import { registerInstallCommand } from './commands/install';
import { registerListCommand } from './commands/list';
import { registerNewCommand } from './commands/new';
import { registerPromptCommand } from './commands/prompt';
import { registerReadCommand } from './commands/read';
import { type Io, processIo } from './output';

const PROGRAM_HELP_AFTER = `
Targets (list, call, read, prompt):
  "node dist/main.js"          a command line, run over stdio: split like a shell would
                               (quotes, backslashes), but no shell runs it
  dist/main.js                 a .js file alone is run with this Node
  http://127.0.0.1:3000/mcp    Streamable HTTP, falling back to the legacy HTTP+SSE transport
  ws://127.0.0.1:3000/mcp      WebSocket (subprotocol "mcp"); needs the ws package installed

Exit codes:
  0  success
  1  the tool reported an error (isError), or the server answered with a JSON-RPC error
  2  usage: unknown command or option, missing or invalid arguments
  3  connection: the server could not be started or reached, exited early, timed out,
     or broke the protocol`;

/**
 * The \`gantry\` command. Commander never exits the process itself (\`exitOverride\`): parse
 * errors are thrown as \`CommanderError\`s, which \`run\` turns into exit code 2 (0 for
 * \`--help\` and \`--version\`).
 *
 * @example
 * await createProgram().parseAsync(['list', 'node dist/main.js'], { from: 'user' });
 */
export function createProgram(io: Io = processIo()): Command {
  const program = new Command(CLI_NAME)
    .description('Scaffold, generate, run and call MCP servers built with Gantry')
    .version(CLI_VERSION, '-V, --version', 'print the version of gantry')
    .helpOption('-h, --help', 'show help for gantry or a command')
    .addHelpText('after', PROGRAM_HELP_AFTER);
  configure(program, io);

  registerNewCommand(program);
  registerGenerateCommand(program);
  registerAddCommand(program);
  registerDevCommand(program, io);
  registerInstallCommand(program, io);
  registerListCommand(program, io);
  registerCallCommand(program, io);
  registerReadCommand(program, io);
  registerPromptCommand(program, io);
  registerAuthCommand(program, io);

  // Commands made with `program.command()` inherit these settings; this also covers any added
  // with `addCommand`, which do not.
  const visit = (command: Command) => {
    configure(command, io);
    command.commands.forEach(visit);
  };
  program.commands.forEach(visit);
  return program;
}

function configure(command: Command, io: Io): void {
  command
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One prefix for every message: "gantry: unknown option '--x'", like "gantry: <CliError>".
      outputError: (text, write) => write(text.replace(/^error: /, 'gantry: ')),
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : 80),
      getErrHelpWidth: () => 80,
    });
}
