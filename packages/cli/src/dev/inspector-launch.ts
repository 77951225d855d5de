import { randomBytes } from 'node:crypto';
import { splitCommandLine } from '../target';

/**
 * The MCP Inspector, run through npx. Major version 2 is the single-binary Inspector whose
 * launcher takes a server command line or `--server-url`/`--transport`, and whose web UI is
 * guarded by a per-launch token (`MCP_INSPECTOR_API_TOKEN`). It needs Node 22.19 or newer.
 */
export const INSPECTOR_COMMAND = ['npx', '-y', '@modelcontextprotocol/inspector@2'];

/** The Inspector's web UI port unless `CLIENT_PORT` says otherwise. */
export const INSPECTOR_DEFAULT_PORT = 6274;

/** What the Inspector connects to: a stdio command it starts, or a running server's URL. */
export type InspectorTarget =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'url'; readonly url: string };

/** A command line to run, with the environment it adds and the URL to open. */
export interface InspectorLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The web UI, with the token (and, for a URL target, an auto-connect deep link). */
  readonly url: string;
}

/**
 * How `gantry dev --inspect` starts the Inspector. `env.GANTRY_INSPECTOR` replaces the npx
 * command line (a global install: `GANTRY_INSPECTOR=mcp-inspector`); `CLIENT_PORT` is the
 * Inspector's own port variable. gantry chooses the token, so that it can print the URL
 * before the Inspector is up.
 */
export function inspectorLaunch(options: {
  target: InspectorTarget;
  env?: NodeJS.ProcessEnv;
  token?: string;
}): InspectorLaunch {
  const env = options.env ?? process.env;
  const base = env.GANTRY_INSPECTOR ? splitCommandLine(env.GANTRY_INSPECTOR) : INSPECTOR_COMMAND;
  const token = options.token ?? randomBytes(32).toString('hex');
  const port = env.CLIENT_PORT || String(INSPECTOR_DEFAULT_PORT);
  const { target } = options;
  const targetArgs =
    target.kind === 'stdio'
      ? // `--` ends the Inspector's options: what follows is the server's command line.
        ['--', target.command, ...target.args]
      : ['--transport', 'http', '--server-url', target.url];
  const query = new URLSearchParams({ MCP_INSPECTOR_API_TOKEN: token });
  if (target.kind === 'url') {
    // The Inspector's deep link: connect to serverUrl at once, gated by the same token.
    query.set('serverUrl', target.url);
    query.set('transport', 'http');
    query.set('autoConnect', token);
  }
  return {
    command: base[0],
    args: [...base.slice(1), ...targetArgs],
    env: { MCP_INSPECTOR_API_TOKEN: token, CLIENT_PORT: port },
    url: `http://localhost:${port}/?${query.toString()}`,
  };
}

/** Node versions below the Inspector's minimum (22.19), for a hint when it fails to start. */
export function nodeTooOldForInspector(version = process.versions.node): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
}
