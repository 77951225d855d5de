#!/usr/bin/env node
// The MCP Apps browser test (packages/fastify/test/browser) drives Debian's Chromium through
// playwright-core, which downloads no browser of its own. `npm test` runs this first: with
// Chromium missing, it installs the distribution's package when it can (root with apt-get),
// so `npm ci && npm test` stays the one command on a fresh machine; otherwise it says what to
// install, and the browser test fails naming it too.
const { execSync } = require('node:child_process');
const { existsSync } = require('node:fs');

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);

const canInstall = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(
    `ensure-chromium: no Chromium at ${path}; install it (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM_PATH. The browser test will fail without it.`,
  );
  process.exit(0);
}
console.error("ensure-chromium: installing Debian's chromium package for the browser test");
execSync('apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium', {
  stdio: 'inherit',
});
