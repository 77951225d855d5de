import { hasKeys, type StdioLaunch, type UrlLaunch } from '../server-launch';

/**
 * The `{ command, args, env }` entry most clients share for a stdio server; `env` only when
 * `--env` gave variables.
 */
export function commandEntry(launch: StdioLaunch): Record<string, unknown> {
  return {
    command: launch.command,
    args: [...launch.args],
    ...(hasKeys(launch.env) ? { env: { ...launch.env } } : {}),
  };
}

/** `headers` for a URL entry, only when `--header` gave some. */
export function headersOf(launch: UrlLaunch): Record<string, unknown> {
  return hasKeys(launch.headers) ? { headers: { ...launch.headers } } : {};
}
