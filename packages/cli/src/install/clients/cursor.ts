import type { ClientFormat } from '../client-format';
import { inHome, inProject } from '../config-locations';
import { commandEntry, headersOf } from './common-entries';

/**
 * Cursor (https://cursor.com/docs/mcp): `mcpServers` in `.cursor/mcp.json` of the project, or
 * in `~/.cursor/mcp.json` for every project. A stdio entry is `{ "command", "args", "env" }`;
 * a remote one is `{ "url", "headers" }` (Streamable HTTP, or SSE, told apart by Cursor).
 */
export const cursor: ClientFormat = {
  id: 'cursor',
  title: 'Cursor',
  scopes: ['user', 'project'],
  syntax: 'json',
  serversKey: ['mcpServers'],
  file(scope, locations) {
    return scope === 'project'
      ? inProject(locations, '.cursor', 'mcp.json')
      : inHome(locations, '.cursor', 'mcp.json');
  },
  entry({ launch }) {
    if (launch.kind === 'url') return { url: launch.url, ...headersOf(launch) };
    return commandEntry(launch);
  },
  nextStep: 'Cursor lists it under Settings → MCP; turn it on there if it is off.',
};
