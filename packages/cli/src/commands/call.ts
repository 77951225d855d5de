import type { Client, TaskInfo } from '@gantry/client';
import type { CallToolResult } from '@gantry/protocol';
import type { Command } from 'commander';
import { collect, parseToolArguments, stringArgumentMismatches } from '../args';
import { CliError } from '../cli-error';
import {
  addConnectionOptions,
  type ConnectionOptions,
  TARGET_ARGUMENT_HELP,
  withConnection,
} from '../connection';
import { ExitCode } from '../exit-codes';
import { formatCallToolResult, formatJson, type Io } from '../output';
import { isJsonRpcError, rpcFailure, unknownName } from '../rpc-failure';

interface CallOptions extends ConnectionOptions {
  args?: string;
  arg: string[];
  json?: boolean;
  task?: boolean;
}

/** One status line of a task: `task 1a2b3c4d working: exporting 3/10`. */
function statusLine(update: TaskInfo): string {
  const message = update.statusMessage === undefined ? '' : `: ${update.statusMessage}`;
  return `task ${update.taskId.slice(0, 8)} ${update.status}${message}`;
}

/**
 * Calls `tool` as a task (`--task`), showing each change of its state on stderr: one line
 * rewritten in place on a terminal, a line per change otherwise. Ctrl+C cancels the task.
 */
async function callAsTask(
  client: Client,
  tool: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
  io: Io,
  tty: boolean,
): Promise<CallToolResult> {
  const task = await client.callTool(tool, args, { signal, task: true });
  if (task.taskId === undefined) {
    io.stderr.write(`${tool} does not run as a task here; it was called directly\n`);
    return task.result();
  }
  const onInterrupt = () => void task.cancel().catch(() => undefined);
  signal.addEventListener('abort', onInterrupt, { once: true });
  try {
    let width = 0;
    for await (const update of task) {
      const line = statusLine(update);
      if (tty) {
        io.stderr.write(`\r${line.padEnd(width)}`);
        width = line.length;
      } else io.stderr.write(`${line}\n`);
    }
    if (tty) io.stderr.write('\n');
    return await task.result();
  } finally {
    signal.removeEventListener('abort', onInterrupt);
  }
}

/** `gantry call <target> <tool>`: calls one tool and prints its result. */
export function registerCallCommand(program: Command, io: Io): void {
  const command = program
    .command('call')
    .description('Call a tool and print its result')
    .argument('<target>', TARGET_ARGUMENT_HELP)
    .argument('<tool>', 'the tool to call')
    .option('--args <json>', 'the arguments as one JSON object')
    .option(
      '-a, --arg <key=value>',
      'one argument (repeatable); the value is JSON when it parses, else a string; a.b=1 nests',
      collect,
      [],
    )
    .option('--json', 'print the raw result as JSON')
    .option('--task', 'run the tool as a task, showing its status until it is done (Ctrl+C cancels it)');
  addConnectionOptions(command)
    .addHelpText(
      'after',
      `
Arguments:
  -a count=3 -a draft=true     numbers, booleans, null, objects and arrays are parsed as JSON
  -a title=hello               anything that is not JSON is a string
  -a 'id="123"'                a JSON string keeps digits text
  -a filter.tag=work           dots nest: { "filter": { "tag": "work" } }
  --args '{"query":"x"}' -a limit=5   -a is applied on top of --args

Output: text content as is, images and audio as [image image/png, N bytes], structuredContent
as indented JSON. A tool error (isError) is printed on stderr and exits 1.

Examples:
  $ gantry call "node dist/main.js" search_notes -a query=gantry -a limit=5
  $ gantry call http://127.0.0.1:3000/mcp create_note --args '{"title":"a","body":"b"}' --json
  $ gantry call "node dist/main.js" export_notes -a format=json --task`,
    )
    .action(async (target: string, tool: string, options: CallOptions) => {
      // Bad arguments are a usage error before any server is started.
      const args = parseToolArguments(options.args, options.arg);
      await withConnection(target, options, io, async ({ client, signal }) => {
        const listTools = () => client.listTools({ signal }).catch(() => undefined);
        let result: Awaited<ReturnType<typeof client.callTool>>;
        try {
          result = options.task
            ? await callAsTask(client, tool, args, signal, io, io.stderr.isTTY === true)
            : await client.callTool(tool, args, { signal });
        } catch (error) {
          if (!isJsonRpcError(error)) throw error;
          // 2025-11-25 tools: an unknown tool is a protocol error; name the ones that exist.
          const tools = await listTools();
          const known = tools?.map((t) => t.name);
          if (known && !known.includes(tool)) throw unknownName('tool', tool, known);
          const schema = tools?.find((t) => t.name === tool)?.inputSchema;
          throw (
            stringArgumentMismatches(options.arg, schema) ??
            rpcFailure(`tools/call ${JSON.stringify(tool)}`, error)
          );
        }
        if (result.isError && options.arg.length > 0) {
          // Invalid arguments are a tool error (2025-11-25 tools §Error Handling). When -a made
          // a number of what the schema says is a string, that is the one cause to report.
          const schema = (await listTools())?.find((t) => t.name === tool)?.inputSchema;
          const mismatch = stringArgumentMismatches(options.arg, schema);
          if (mismatch) throw mismatch;
        }
        if (options.json) io.stdout.write(formatJson(result));
        if (result.isError) {
          if (!options.json) io.stderr.write(formatCallToolResult(result));
          throw new CliError(
            `tool ${JSON.stringify(tool)} reported an error (isError: true)`,
            ExitCode.ToolError,
          );
        }
        if (!options.json) io.stdout.write(formatCallToolResult(result));
      });
    });
}
