// `node -r @gantry/cli/register src/main.ts`: runs TypeScript sources in Node, compiled by
// @swc/core with decorator metadata, which Gantry reads for `@Args()` and constructor
// injection (tsx and esbuild drop it). `gantry dev` runs servers through this hook.
//
// Settings: the project's `.swcrc`, looked up from the entry's directory upwards; without
// one, legacy decorators + decorator metadata + CommonJS. Either way the output is CommonJS
// (a require hook can load nothing else) with inline source maps, and stack traces point
// into the .ts files. Files under node_modules are left to Node.

const { existsSync, readFileSync } = require('node:fs');
const { dirname, join, parse, resolve, sep } = require('node:path');
const swc = require('@swc/core');

/** Used when the project has no `.swcrc`: what `tsc` does with experimentalDecorators + emitDecoratorMetadata. */
const BUILT_IN_CONFIG = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
};

/** The nearest `.swcrc` in `dir` or a parent directory, or undefined. */
function findSwcrc(dir) {
  let current = resolve(dir);
  for (;;) {
    const candidate = join(current, '.swcrc');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(current);
    if (parent === current || current === parse(current).root) return undefined;
    current = parent;
  }
}

/** Reads a `.swcrc`: an object, or an array whose first entry without `test` (or matching .ts) is used. */
function readSwcrc(file) {
  let config;
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`@gantry/cli/register: cannot read ${file}: ${error.message}`);
  }
  if (Array.isArray(config)) {
    const appliesToTs = (entry) =>
      entry.test === undefined ||
      [].concat(entry.test).some((pattern) => new RegExp(pattern).test('file.ts'));
    config = config.find(appliesToTs) ?? config[0] ?? {};
  }
  const { $schema, test, exclude, ...options } = config;
  return options;
}

/** The options every file is compiled with. */
function compilerOptions(config) {
  return {
    ...config,
    sourceMaps: 'inline',
    module: { ...config.module, type: 'commonjs' },
    swcrc: false,
    configFile: false,
  };
}

// The entry is argv[1] under `node -r`; without one (a REPL), the working directory.
const entryDir = process.argv[1] ? dirname(resolve(process.argv[1])) : process.cwd();
const swcrc = findSwcrc(entryDir);
const options = compilerOptions(swcrc ? readSwcrc(swcrc) : BUILT_IN_CONFIG);
const nodeModules = `${sep}node_modules${sep}`;
process.setSourceMapsEnabled(true);

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  if (filename.includes(nodeModules)) {
    // As Node treats an unknown extension without a hook.
    require.extensions['.js'](module, filename);
    return;
  }
  const source = readFileSync(filename, 'utf8');
  let code;
  try {
    ({ code } = swc.transformSync(source, { ...options, filename }));
  } catch (error) {
    exitOnSyntaxError(error, filename, source);
    throw error;
  }
  module._compile(code, filename);
};

/**
 * A syntax error in the user's TypeScript: swc's message is a framed snippet followed by a
 * native backtrace, and Node would add its own stack and the line of this hook that threw. Print
 * what a compiler prints (file:line:col, the source around it, a caret) and exit with 1, as
 * Node does for a syntax error in a JavaScript entry. Anything else swc throws is rethrown.
 */
function exitOnSyntaxError(error, filename, source) {
  let frame;
  try {
    frame = require('./dist/dev/swc-syntax-error.js').describeSwcSyntaxError(error, filename, source);
  } catch {
    return; // dist not built: swc's own message has to do
  }
  if (frame === undefined) return;
  process.stderr.write(frame);
  process.exit(1);
}

module.exports = { BUILT_IN_CONFIG, findSwcrc, swcrc };
