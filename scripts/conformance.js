// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, all 32
// server scenarios) against apps/conformance over Streamable HTTP, and fails on any FAILURE or
// WARNING check. The CLI and the Node 22 it needs come from scripts/conformance-cli.js.

const { spawn } = require('node:child_process');
const { mkdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const {
  checksOf,
  DIR,
  install,
  listScenarios,
  ROOT,
  runCli,
  SCENARIO_TIMEOUT_MS,
} = require('./conformance-cli');

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

function runScenario(name, url, outDir) {
  return runCli(['server', '--url', url, '--scenario', name, '-o', outDir]);
}

(async () => {
  install();
  const names = listScenarios().server;
  const { server, url } = await startServer();
  const outDir = join(DIR, 'results');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  let passed = 0;
  let failed = 0;
  try {
    for (const name of names) {
      const run = await runScenario(name, url, outDir);
      const checks = checksOf(outDir, 'server-', name);
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
