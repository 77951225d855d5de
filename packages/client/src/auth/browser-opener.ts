// Opening the user's browser on a URL, for the loopback interaction (RFC 8252 §4: a native
// app sends the user to the authorization endpoint in the system browser, not a web view).
import { spawn } from 'node:child_process';

/** The command that opens `url` in the default browser on `platform`. */
export interface OpenerCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Windows: `cmd` gets the line as written (Node's quoting would let `&` split the command). */
  readonly windowsVerbatimArguments?: boolean;
}

/**
 * `xdg-open <url>` on Linux and other Unixes, `open <url>` on macOS, `cmd /c start "" "<url>"`
 * on Windows. The URL is a parsed URL's `href`, so it holds no `"` or space to escape.
 */
export function openerCommand(url: URL, platform: NodeJS.Platform = process.platform): OpenerCommand {
  if (platform === 'darwin') return { command: 'open', args: [url.href] };
  if (platform === 'win32') {
    // `start` takes its first quoted argument as a window title, hence the empty "".
    return { command: 'cmd', args: ['/c', 'start', '""', `"${url.href}"`], windowsVerbatimArguments: true };
  }
  return { command: 'xdg-open', args: [url.href] };
}

/**
 * Starts the platform opener detached, so the CLI neither waits for nor outlives-kills it.
 * Resolves once it started; rejects when it could not (no `xdg-open` on a headless box).
 */
export function openInBrowser(url: URL): Promise<void> {
  const { command, args, windowsVerbatimArguments } = openerCommand(url);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      // Named, not left to spawn's default: the `process.env` this module sees (which a test
      // runner may sandbox) is what the opener gets, PATH and DISPLAY included.
      env: process.env,
      detached: true,
      stdio: 'ignore',
      windowsHide: true,
      windowsVerbatimArguments,
    });
    child.once('error', (error) => reject(new Error(`${command} could not start: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
