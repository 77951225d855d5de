import { CliError } from '../../cli-error';
import { ExitCode } from '../../exit-codes';
import type { ClientFormat } from '../client-format';
import { appDataDir, pathFor } from '../config-locations';
import { commandEntry } from './common-entries';

/**
 * Claude Desktop (https://modelcontextprotocol.io/quickstart/user):
 * `mcpServers` in `claude_desktop_config.json`, in `~/Library/Application Support/Claude` on
 * macOS and `%APPDATA%\Claude` on Windows. There is no Linux release; community builds use
 * `~/.config/Claude` (`$XDG_CONFIG_HOME/Claude`), which is what Linux gets here. The file
 * starts stdio servers only (`{ "command", "args", "env" }`); remote servers are added in the
 * app as connectors, so a URL is refused with the ways that work.
 */
export const claudeDesktop: ClientFormat = {
  id: 'claude-desktop',
  title: 'Claude Desktop',
  scopes: ['user'],
  syntax: 'json',
  serversKey: ['mcpServers'],
  file(_scope, locations) {
    return pathFor(locations).join(appDataDir(locations), 'Claude', 'claude_desktop_config.json');
  },
  entry({ launch }) {
    if (launch.kind === 'url') {
      const headers = Object.entries(launch.headers).map(([key, value]) => ` --header '${key}: ${value}'`);
      throw new CliError(
        `Claude Desktop's claude_desktop_config.json cannot hold a URL: it starts servers over stdio only. ` +
          'Install the stdio entry instead (leave out --url), or bridge the URL with mcp-remote: ' +
          `gantry install claude-desktop --command npx -- -y mcp-remote ${launch.url}${headers.join('')} ` +
          '(or add the URL in Claude Desktop under Settings → Connectors)',
        ExitCode.Usage,
      );
    }
    return commandEntry(launch);
  },
  nextStep: 'Restart Claude Desktop to load it.',
};
