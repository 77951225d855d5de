import type { ClientFormat } from '../client-format';
import { pathFor, xdgConfigHome } from '../config-locations';

/** Goose's default extension timeout, in seconds, as `goose configure` writes it. */
const GOOSE_TIMEOUT_S = 300;

/**
 * Goose (https://block.github.io/goose/docs/guides/config-files): `extensions` in
 * `~/.config/goose/config.yaml` (`$XDG_CONFIG_HOME/goose`) on Linux and macOS,
 * `%APPDATA%\Block\goose\config\config.yaml` on Windows. Each extension is keyed by its name:
 * `{ type: stdio, name, enabled, cmd, args, envs, env_keys, timeout }`, or for a URL
 * `{ type: streamable_http, name, enabled, uri, headers, envs, env_keys, timeout }`.
 * The file is edited as a YAML document, so its comments and key order are kept.
 */
export const goose: ClientFormat = {
  id: 'goose',
  title: 'Goose',
  scopes: ['user'],
  syntax: 'yaml',
  serversKey: ['extensions'],
  file(_scope, locations) {
    const path = pathFor(locations);
    if (locations.platform === 'win32') {
      const appData = locations.env.APPDATA || path.join(locations.home, 'AppData', 'Roaming');
      return path.join(appData, 'Block', 'goose', 'config', 'config.yaml');
    }
    return path.join(xdgConfigHome(locations), 'goose', 'config.yaml');
  },
  entry({ name, launch }) {
    if (launch.kind === 'url') {
      return {
        type: 'streamable_http',
        name,
        enabled: true,
        uri: launch.url,
        headers: { ...launch.headers },
        envs: {},
        env_keys: [],
        timeout: GOOSE_TIMEOUT_S,
      };
    }
    return {
      type: 'stdio',
      name,
      enabled: true,
      cmd: launch.command,
      args: [...launch.args],
      envs: { ...launch.env },
      env_keys: [],
      timeout: GOOSE_TIMEOUT_S,
    };
  },
  nextStep: 'Start a new goose session to load it (goose session).',
};
