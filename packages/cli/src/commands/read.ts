import {
  GantryError,
  LocalErrorCode,
  Method,
  type ReadResourceResult,
  type Resource,
} from '@gantry/protocol';
import type { Command } from 'commander';
import {
  addConnectionOptions,
  type ConnectionOptions,
  TARGET_ARGUMENT_HELP,
  withConnection,
} from '../connection';
import { formatJson, formatReadResourceResult, type Io } from '../output';
import { isJsonRpcError, rpcFailure } from '../rpc-failure';
import { listAll } from './list';

/** Resource URIs quoted when a read fails. */
const MAX_LISTED = 20;

interface ReadOptions extends ConnectionOptions {
  json?: boolean;
}

/** `gantry read <target> <uri>`: reads one resource and prints its contents. */
export function registerReadCommand(program: Command, io: Io): void {
  const command = program
    .command('read')
    .description('Read a resource and print its contents')
    .argument('<target>', TARGET_ARGUMENT_HELP)
    .argument('<uri>', 'the resource URI (a listed resource, or one matching a template)')
    .option('--json', 'print the raw result as JSON');
  addConnectionOptions(command)
    .addHelpText(
      'after',
      `
Output: text contents as is, binary contents as [resource <uri> <mime>, N bytes]; several
contents each under a [resource <uri>] line.

Examples:
  $ gantry read "node dist/main.js" notes://index
  $ gantry read http://127.0.0.1:3000/mcp notes://1a2b3c4d --json`,
    )
    .action(async (target: string, uri: string, options: ReadOptions) => {
      await withConnection(target, options, io, async ({ client, signal }) => {
        let result: ReadResourceResult;
        try {
          result = await client.request<ReadResourceResult>(Method.ResourcesRead, { uri }, { signal });
        } catch (error) {
          if (!isJsonRpcError(error)) throw error;
          const known = await listAll<Resource>(client, Method.ResourcesList, 'resources', signal).then(
            (resources) => resources.map((r) => r.uri),
            () => [] as string[],
          );
          const listed =
            known.length > 0 && !known.includes(uri)
              ? `\n(listed resources: ${known.slice(0, MAX_LISTED).join(', ')}${known.length > MAX_LISTED ? ', …' : ''})`
              : '';
          throw rpcFailure(`resources/read ${JSON.stringify(uri)}`, error, listed);
        }
        if (!Array.isArray(result.contents)) {
          throw new GantryError(
            LocalErrorCode.ProtocolViolation,
            'resources/read answered without a "contents" array',
          );
        }
        io.stdout.write(options.json ? formatJson(result) : formatReadResourceResult(result));
      });
    });
}
