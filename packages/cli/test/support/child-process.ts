import type { ChildProcess } from 'node:child_process';

/** How a child process ended, with everything it printed. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Waits for a child to close (its output read to the end) and collects its stdout and stderr. */
export function collect(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

/**
 * The environment a user's shell would give a project's commands: this one without what npm and
 * Jest add (`npm_package_*`, `npm_lifecycle_*`, `JEST_WORKER_ID`, `NODE_ENV=test`, `INIT_CWD`
 * would describe this repository's run to the project's npm; `CLAUDE_CONFIG_DIR` would send
 * `gantry install claude-code` elsewhere than the test's HOME), and with npm told to prefer its
 * cache (which keeps installs quick) and to keep quiet. npm's cache, registry and userconfig
 * settings are kept, so a machine's npm setup still applies.
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const npmRun = key.startsWith('npm_') && !/^npm_config_(cache|registry|userconfig)$/.test(key);
    const ours =
      key.startsWith('JEST_') || key === 'INIT_CWD' || key === 'NODE_ENV' || key === 'CLAUDE_CONFIG_DIR';
    if (!npmRun && !ours) env[key] = value;
  }
  return {
    ...env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** Fails with the command's output unless it exited 0. */
export function succeeded(result: Finished): Finished {
  if (result.code !== 0) throw new Error(`exit code ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}
