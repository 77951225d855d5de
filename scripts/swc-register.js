// Runs TypeScript sources in Node with decorator metadata, through @swc/core and the repo's
// .swcrc (tsx and esbuild drop the metadata). Tests use it to spawn fixture servers written in
// TypeScript: `node -r ./scripts/swc-register.js fixture.ts`.

const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const swc = require('@swc/core');

const config = JSON.parse(readFileSync(join(__dirname, '..', '.swcrc'), 'utf8'));
delete config.$schema;

require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8');
  const { code } = swc.transformSync(source, { ...config, filename, swcrc: false, configFile: false });
  module._compile(code, filename);
};
