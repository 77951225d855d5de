// Keeps the Jest projects honest (jest.config.ts). A spec file is a unit test unless its name
// says otherwise, and a unit test runs in memory: this guard, loaded by the `unit` project,
// makes starting a child process, listening on a port or opening a connection fail the test
// with a message that says how to rename the file. The `integration` project loads it too, to
// refuse registry installs (`npm install`, `npm ci`, `npx`), which belong to `e2e`.
//
// The guard patches Node's shared module objects, which every test file of a Jest worker sees;
// it installs itself before each file's tests and puts the originals back after them.
import { basename, relative } from 'node:path';

// The module objects themselves (an `import * as` would be a copy under CommonJS interop):
// tests call `spawnSync` & co. through them.
const childProcess: typeof import('node:child_process') = require('node:child_process');
const net: typeof import('node:net') = require('node:net');

type Kind = 'unit' | 'integration';

interface Patch {
  readonly target: object;
  readonly key: string;
  readonly original: unknown;
}

const REGISTRY_COMMANDS = new Set(['install', 'i', 'ci', 'add', 'update']);

/** What a spawn is about to run, from the options `ChildProcess.prototype.spawn` receives. */
function describeSpawn(options: { file?: string; args?: readonly string[] } | undefined): string {
  return (options?.args ?? [options?.file ?? '?']).join(' ');
}

/** True when a spawn would install packages from a registry (npm install / ci, npx). */
function installsFromRegistry(options: { file?: string; args?: readonly string[] } | undefined): boolean {
  const file = basename(options?.file ?? '').replace(/\.cmd$/, '');
  const args = options?.args?.slice(1) ?? [];
  if (file === 'npx') return true;
  if (file !== 'npm') return false;
  const command = args.find((arg) => !arg.startsWith('-'));
  return command !== undefined && REGISTRY_COMMANDS.has(command);
}

export function installSpeedGuard(kind: Kind): void {
  const patches: Patch[] = [];
  const violations: string[] = [];
  const testFile = () => relative(process.cwd(), expect.getState().testPath ?? '?');

  function refuse(what: string): never {
    const file = testFile();
    const message =
      kind === 'unit'
        ? `${file} is in the unit project (in memory: no processes, ports or connections), but it ${what}. ` +
          `Rename it ${basename(file).replace(/\.spec\.ts$/, '.int.spec.ts')} (integration), or ` +
          `${basename(file).replace(/\.spec\.ts$/, '.e2e.spec.ts')} if it installs packages from a registry.`
        : `${file} is in the integration project, but it ${what}. ` +
          `Rename it ${basename(file).replace(/\.int\.spec\.ts$/, '.e2e.spec.ts')} (e2e): registry installs are slow.`;
    violations.push(message);
    throw new Error(message);
  }

  function patch<T extends object>(
    target: T,
    key: keyof T & string,
    wrap: (original: never) => unknown,
  ): void {
    const original = target[key];
    patches.push({ target, key, original });
    (target as Record<string, unknown>)[key] = wrap(original as never);
  }

  beforeAll(() => {
    const proto = childProcess.ChildProcess.prototype as unknown as {
      spawn: (this: unknown, options: { file?: string; args?: readonly string[] }) => unknown;
    };
    patch(
      proto,
      'spawn',
      (original: (this: unknown, options: never) => unknown) =>
        function guardedSpawn(this: unknown, options: { file?: string; args?: string[] }) {
          if (kind === 'unit') refuse(`starts a child process (${describeSpawn(options)})`);
          if (installsFromRegistry(options)) refuse(`installs from a registry (${describeSpawn(options)})`);
          return original.call(this, options as never);
        },
    );
    if (kind !== 'unit') return;
    for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
      patch(
        childProcess,
        name,
        () =>
          (...args: unknown[]) =>
            refuse(`starts a child process (${name} ${String(args[0])})`),
      );
    }
    patch(net.Server.prototype, 'listen', () => () => refuse('listens on a port'));
    patch(net.Socket.prototype, 'connect', () => () => refuse('opens a network connection'));
  });

  afterAll(() => {
    for (const { target, key, original } of patches.reverse())
      (target as Record<string, unknown>)[key] = original;
    // A violation that the code under test caught and hid still fails the file.
    if (violations.length > 0) throw new Error(violations[0]);
  });
}
