// Runs the client suite of the official MCP conformance CLI (@modelcontextprotocol/conformance
// 0.1.16, 26 scenarios) against the fixture client apps/conformance/dist/client.js, one scenario
// at a time, and prints one line per scenario and a total. A scenario passes only with checks,
// none of them FAILURE or WARNING, and the CLI exiting 0 (which also needs the client to exit 0,
// unless the scenario allows an error exit).
//
//   node scripts/conformance-client.js                       every client scenario
//   node scripts/conformance-client.js --scenario a,b        only those
//   node scripts/conformance-client.js --verbose             also the failing checks' messages
//
// Exits 0 only when every selected scenario passed. The CLI and Node 22 come from
// scripts/conformance-cli.js.

const { existsSync, mkdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const {
  checksOf,
  DIR,
  install,
  listScenarios,
  ROOT,
  resultDirOf,
  runCli,
  SCENARIO_TIMEOUT_MS,
} = require('./conformance-cli');

const FIXTURE = join(ROOT, 'apps', 'conformance', 'dist', 'client.js');

function usage(message) {
  console.error(`conformance-client: ${message}`);
  console.error('usage: node scripts/conformance-client.js [--scenario name,name,...] [--verbose]');
  process.exit(2);
}

function parseArgs(argv) {
  const options = { scenarios: undefined, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--verbose') options.verbose = true;
    else if (arg === '--scenario' || arg.startsWith('--scenario=')) {
      const value = arg === '--scenario' ? argv[++i] : arg.slice('--scenario='.length);
      if (!value) usage('--scenario needs a comma-separated list of scenario names');
      options.scenarios = value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      if (options.scenarios.length === 0) usage('--scenario needs at least one scenario name');
    } else usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  return options;
}

/**
 * The --command the CLI runs. It splits the command on spaces and runs it through a shell, so
 * the paths must contain neither.
 */
function fixtureCommand() {
  if (!existsSync(FIXTURE)) {
    throw new Error(`${FIXTURE} does not exist: build it first with \`npx tsc -b\``);
  }
  for (const path of [process.execPath, FIXTURE]) {
    if (!/^[\w./+@-]+$/.test(path)) {
      throw new Error(
        `the conformance CLI splits --command on spaces and runs it in a shell, so it cannot run ${JSON.stringify(path)}; move the checkout to a plain path`,
      );
    }
  }
  // The runner's own Node runs the client: the fixture targets the project's engine, not Node 22.
  return `${process.execPath} ${FIXTURE}`;
}

function runScenario(command, name, outDir) {
  return runCli(['client', '--command', command, '--scenario', name, '-o', outDir]);
}

/** The verdict on one scenario: PASS, WARN (warnings only) or FAIL, with the checks at fault. */
function verdictOf(run, checks) {
  const failures = (checks ?? []).filter((c) => c.status === 'FAILURE');
  const warnings = (checks ?? []).filter((c) => c.status === 'WARNING');
  const notes = [];
  if (run.signal) notes.push(`the CLI was killed after ${SCENARIO_TIMEOUT_MS} ms`);
  if (!checks) notes.push('the CLI wrote no checks');
  else if (checks.length === 0) notes.push('no checks');
  if (/CLIENT TIMED OUT/.test(run.output)) notes.push('the client timed out');
  else if (/CLIENT EXITED WITH ERROR/.test(run.output)) notes.push('the client exited with an error');
  let status = 'PASS';
  if (failures.length > 0 || notes.length > 0) status = 'FAIL';
  else if (warnings.length > 0) status = 'WARN';
  // The CLI's own verdict: it fails a scenario for more than its checks (a client exit it forbids).
  else if (run.code !== 0) {
    status = 'FAIL';
    notes.push(`the CLI exited ${run.code}`);
  }
  return { status, failures, warnings, notes, checks: checks ?? [] };
}

function clientStderr(outDir, name) {
  const checksDir = resultDirOf(outDir, '', name);
  if (!checksDir) return '';
  const file = join(checksDir, 'stderr.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
}

(async () => {
  const options = parseArgs(process.argv.slice(2));
  install();
  const command = fixtureCommand();
  const all = listScenarios().client;
  const unknown = (options.scenarios ?? []).filter((name) => !all.includes(name));
  if (unknown.length > 0) {
    usage(`unknown client scenario(s) ${unknown.join(', ')}; the suite has: ${all.join(', ')}`);
  }
  const names = options.scenarios ?? all;
  const outDir = join(DIR, 'client-results');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  let passed = 0;
  for (const name of names) {
    const run = await runScenario(command, name, outDir);
    const verdict = verdictOf(run, checksOf(outDir, '', name));
    if (verdict.status === 'PASS') passed++;
    const bad = [...verdict.failures, ...verdict.warnings].map((c) => c.id);
    const detail = [bad.length > 0 ? bad.join(', ') : undefined, ...verdict.notes].filter(Boolean);
    // Counted as the CLI counts them: SUCCESS out of SUCCESS + FAILURE (INFO checks are logs).
    const successes = verdict.checks.filter((c) => c.status === 'SUCCESS').length;
    const warned = verdict.warnings.length > 0 ? `, ${verdict.warnings.length} warnings` : '';
    const count = `${successes}/${successes + verdict.failures.length} checks${warned}`;
    console.log(`${verdict.status} ${name} (${count})${detail.length > 0 ? `: ${detail.join('; ')}` : ''}`);
    if (options.verbose && verdict.status !== 'PASS') {
      for (const check of [...verdict.failures, ...verdict.warnings]) {
        console.log(`    ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
      }
      const stderr = clientStderr(outDir, name);
      if (stderr) console.log(`    client stderr: ${stderr.split('\n').slice(-5).join('\n    ')}`);
      if (!verdict.checks.length) console.log(run.output.split('\n').slice(-20).join('\n'));
    }
  }
  console.log(`client conformance: ${passed}/${names.length}`);
  process.exitCode = passed === names.length ? 0 : 1;
})().catch((error) => {
  console.error(`conformance-client: ${error.message}`);
  process.exitCode = 1;
});
