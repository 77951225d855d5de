import { isAbsolute, relative } from 'node:path';
import type { GitOutcome } from './git-init';
import type { ProjectTransport } from './project-manifest';
import type { TemplateValues } from './template-files';

/** How to show `directory` to someone in `cwd`: relative when it is below it. */
export function shownPath(directory: string, cwd: string): string {
  const path = relative(cwd, directory);
  if (path === '') return '.';
  return !path.startsWith('..') && !isAbsolute(path) ? path : directory;
}

/** The line that says what happened about git. */
export function gitLine(git: GitOutcome): string {
  if (git.kind === 'committed') return 'Initialized a git repository with a first commit';
  if (git.kind === 'initialized') return `Initialized a git repository, with ${git.reason}`;
  return `No git repository: ${git.reason}`;
}

/** The closing "next steps": commands to run, and how to connect a client. */
export function nextSteps(options: {
  shown: string;
  transport: ProjectTransport;
  installed: boolean;
  values: TemplateValues;
}): string[] {
  const { shown, transport, installed, values } = options;
  const lines = shown === '.' ? [] : [`  cd ${shown.includes(' ') ? JSON.stringify(shown) : shown}`];
  if (!installed) lines.push('  npm install              install the dependencies');
  lines.push('  npm test                 run the tests (in memory: no process, no port)');
  if (transport === 'stdio') {
    lines.push(
      '  npm run build            compile to dist/, which clients run',
      '',
      'Connect a client (README.md has the configurations for Claude Code, Claude Desktop and the MCP Inspector):',
      '  npx gantry install claude-code      (or claude-desktop, cursor, vscode, gemini-cli, goose)',
      `  claude mcp add ${values.serverName} -- node ${values.entryArg}`,
      `  npx @modelcontextprotocol/inspector node ${values.entryArg}`,
    );
  } else {
    lines.push(
      '  npm run dev              serve it from source on http://127.0.0.1:3000/mcp, restarting on changes',
      '',
      'Connect a client while it runs (README.md has the configurations for Claude Code, Claude Desktop and the MCP Inspector):',
      '  npx gantry install claude-code --url http://127.0.0.1:3000/mcp',
      `  claude mcp add --transport http ${values.serverName} http://127.0.0.1:3000/mcp`,
      '  npx @modelcontextprotocol/inspector   (transport "Streamable HTTP", URL http://127.0.0.1:3000/mcp)',
    );
  }
  return lines;
}
