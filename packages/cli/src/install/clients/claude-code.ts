import type { ClientFormat } from '../client-format';
import { inHome, inProject, pathFor } from '../config-locations';
import { commandEntry, headersOf } from './common-entries';

/**
 * Claude Code (https://code.claude.com/docs/en/mcp, "MCP installation scopes"):
 * - project scope: `.mcp.json` at the project root, `mcpServers`, meant to be committed;
 * - user scope: `mcpServers` at the top of `~/.claude.json` (in `$CLAUDE_CONFIG_DIR` when that
 *   is set), for every project of this user.
 * A stdio entry is `{ "type": "stdio", "command", "args", "env" }`, a remote one
 * `{ "type": "http", "url", "headers" }`.
 */
export const claudeCode: ClientFormat = {
  id: 'claude-code',
  title: 'Claude Code',
  scopes: ['user', 'project'],
  syntax: 'json',
  serversKey: ['mcpServers'],
  file(scope, locations) {
    if (scope === 'project') return inProject(locations, '.mcp.json');
    const configDir = locations.env.CLAUDE_CONFIG_DIR;
    return configDir ? pathFor(locations).join(configDir, '.claude.json') : inHome(locations, '.claude.json');
  },
  entry({ launch }) {
    if (launch.kind === 'url') return { type: 'http', url: launch.url, ...headersOf(launch) };
    return { type: 'stdio', ...commandEntry(launch) };
  },
  nextStep: 'Check it with: claude mcp list',
};
