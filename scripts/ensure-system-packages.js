#!/usr/bin/env node
// Some integration tests need programs from the distribution rather than npm: the MCP Apps
// browser test (packages/fastify/test/browser) drives Debian's Chromium through playwright-core,
// which downloads no browser of its own, the @gantry/redis tests run a real redis-server, and
// the cluster tests (packages/redis/test/nginx.int.spec.ts) put Gantry nodes behind a real nginx.
// `npm test` runs this first: whatever is missing is installed in one apt-get call when it can
// be (root with apt-get), so `npm ci && npm test` stays the one command on a fresh machine;
// otherwise it says what to install, and the tests that need it fail naming it too.
const { execSync } = require('node:child_process');
const { existsSync } = require('node:fs');

/** On PATH (or an absolute path that exists). */
function found(command) {
  if (command.includes('/')) return existsSync(command);
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(`${dir}/${command}`));
}

const needs = [
  {
    pkg: 'chromium',
    path: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    env: 'CHROMIUM_PATH',
    usedBy: 'the browser test',
  },
  {
    pkg: 'redis-server',
    path: process.env.REDIS_SERVER_PATH ?? 'redis-server',
    env: 'REDIS_SERVER_PATH',
    usedBy: 'the @gantry/redis tests',
  },
  {
    pkg: 'nginx',
    path: process.env.NGINX_PATH ?? '/usr/sbin/nginx',
    env: 'NGINX_PATH',
    usedBy: 'the cluster tests',
  },
];

const missing = needs.filter((need) => !found(need.path));
if (missing.length === 0) process.exit(0);

const canInstall = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  for (const need of missing) {
    console.error(
      `ensure-system-packages: no ${need.path}; install it (Debian/Ubuntu: apt-get install ${need.pkg}) or set ${need.env}. Without it, ${need.usedBy} will fail.`,
    );
  }
  process.exit(0);
}
const packages = missing.map((need) => need.pkg).join(' ');
console.error(
  `ensure-system-packages: installing Debian's ${packages} for ${missing.map((need) => need.usedBy).join(' and ')}`,
);
execSync(`apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages}`, {
  stdio: 'inherit',
});
