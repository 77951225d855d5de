// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, all 32
// server scenarios) against apps/conformance over Streamable HTTP, and fails on any FAILURE or
// WARNING check. The CLI and the Node 22 it needs come from scripts/conformance-cli.js.

const { mkdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const {
  checksOf,
  DIR,
  install,
  listScenarios,
  runCli,
  SCENARIO_TIMEOUT_MS,
  startFixture,
} = require('./conformance-cli');

function runScenario(name, url, outDir) {
  return runCli(['server', '--url', url, '--scenario', name, '-o', outDir]);
}

(async () => {
  install();
  const names = listScenarios().server;
  const { server, url } = await startFixture();
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
