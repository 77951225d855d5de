import type { ClientFormat } from '../client-format';
import { inHome, inProject } from '../config-locations';
import { commandEntry, headersOf } from './common-entries';

/**
 * Gemini CLI (https://geminicli.com/docs/tools/mcp-server/): `mcpServers` in
 * `.gemini/settings.json` of the project, or in `~/.gemini/settings.json`. A stdio entry is
 * `{ "command", "args", "env" }`; a Streamable HTTP one is `{ "httpUrl", "headers" }` (its
 * `url` key means SSE, so it is not used here).
 */
export const geminiCli: ClientFormat = {
  id: 'gemini-cli',
  title: 'Gemini CLI',
  scopes: ['user', 'project'],
  syntax: 'json',
  serversKey: ['mcpServers'],
  file(scope, locations) {
    return scope === 'project'
      ? inProject(locations, '.gemini', 'settings.json')
      : inHome(locations, '.gemini', 'settings.json');
  },
  entry({ launch }) {
    if (launch.kind === 'url') return { httpUrl: launch.url, ...headersOf(launch) };
    return commandEntry(launch);
  },
  nextStep: 'Check it with: gemini mcp list',
};
