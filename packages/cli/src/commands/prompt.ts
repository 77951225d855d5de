import { GantryError, type GetPromptResult, LocalErrorCode, Method, type Prompt } from '@gantry/protocol';
import type { Command } from 'commander';
import { collect, parsePromptArguments } from '../args';
import {
  addConnectionOptions,
  type ConnectionOptions,
  TARGET_ARGUMENT_HELP,
  withConnection,
} from '../connection';
import { formatJson, formatPromptResult, type Io } from '../output';
import { isJsonRpcError, rpcFailure, unknownName } from '../rpc-failure';
import { listAll } from './list';

interface PromptOptions extends ConnectionOptions {
  arg: string[];
  json?: boolean;
}

/** `gantry prompt <target> <name>`: gets one prompt and prints its messages. */
export function registerPromptCommand(program: Command, io: Io): void {
  const command = program
    .command('prompt')
    .description('Get a prompt and print its messages')
    .argument('<target>', TARGET_ARGUMENT_HELP)
    .argument('<name>', 'the prompt to get')
    .option('-a, --arg <key=value>', 'one argument (repeatable); prompt arguments are strings', collect, [])
    .option('--json', 'print the raw result as JSON');
  addConnectionOptions(command)
    .addHelpText(
      'after',
      `
Output: each message under a [user] or [assistant] line, content as in gantry call.

Example:
  $ gantry prompt "node dist/main.js" summarize_note -a id=1a2b3c4d -a style=bullets`,
    )
    .action(async (target: string, name: string, options: PromptOptions) => {
      const args = parsePromptArguments(options.arg);
      await withConnection(target, options, io, async ({ client, signal }) => {
        let result: GetPromptResult;
        try {
          result = await client.request<GetPromptResult>(
            Method.PromptsGet,
            { name, arguments: args },
            { signal },
          );
        } catch (error) {
          if (!isJsonRpcError(error)) throw error;
          const known = await listAll<Prompt>(client, Method.PromptsList, 'prompts', signal).then(
            (prompts) => prompts.map((p) => p.name),
            () => undefined,
          );
          if (known && !known.includes(name)) throw unknownName('prompt', name, known);
          throw rpcFailure(`prompts/get ${JSON.stringify(name)}`, error);
        }
        if (!Array.isArray(result.messages)) {
          throw new GantryError(
            LocalErrorCode.ProtocolViolation,
            'prompts/get answered without a "messages" array',
          );
        }
        io.stdout.write(options.json ? formatJson(result) : formatPromptResult(result));
      });
    });
}
