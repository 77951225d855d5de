import { CliError } from '../../cli-error';
import { ExitCode } from '../../exit-codes';
import type { ClientFormat } from '../client-format';
import { commandEntry, headersOf } from './common-entries';

/**
 * The generic `mcpServers` JSON that most clients read in some file of theirs: printed, or
 * merged into the file named by `--file`. A stdio entry is `{ "command", "args", "env" }`
 * (Claude Desktop's shape); a URL entry is `{ "type": "http", "url", "headers" }`, which
 * Claude Code needs (https://code.claude.com/docs/en/mcp) and Cursor also accepts.
 */
export const mcpJson: ClientFormat = {
  id: 'mcp-json',
  title: 'mcp-json',
  scopes: [],
  syntax: 'json',
  serversKey: ['mcpServers'],
  file() {
    throw new CliError(
      'mcp-json has no file of its own: pass --file <path>, or none to print it',
      ExitCode.Usage,
    );
  },
  entry({ launch }) {
    if (launch.kind === 'url') return { type: 'http', url: launch.url, ...headersOf(launch) };
    return commandEntry(launch);
  },
};
