import type { ClientFormat } from '../client-format';
import { appDataDir, inProject, pathFor } from '../config-locations';
import { commandEntry, headersOf } from './common-entries';

/**
 * VS Code (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration): a top-level
 * `servers` object in `.vscode/mcp.json` of the workspace, or in `mcp.json` of the user profile
 * ("MCP: Open User Configuration": `Code/User/mcp.json` in the application data directory).
 * Every entry has a `type`: `{ "type": "stdio", "command", "args", "env" }` or
 * `{ "type": "http", "url", "headers" }`. The file is JSON with comments; comments are kept.
 */
export const vscode: ClientFormat = {
  id: 'vscode',
  title: 'VS Code',
  scopes: ['user', 'project'],
  syntax: 'json',
  serversKey: ['servers'],
  file(scope, locations) {
    if (scope === 'project') return inProject(locations, '.vscode', 'mcp.json');
    return pathFor(locations).join(appDataDir(locations), 'Code', 'User', 'mcp.json');
  },
  entry({ launch }) {
    if (launch.kind === 'url') return { type: 'http', url: launch.url, ...headersOf(launch) };
    return { type: 'stdio', ...commandEntry(launch) };
  },
  nextStep:
    'VS Code shows it in the Extensions view under MCP Servers; start it from there or from mcp.json.',
};
