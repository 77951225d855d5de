import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { templatesRoot } from './cli-package';
import { NPM_INSTALL_ARGS } from './create-project';
import { gantryOnRegistry } from './gantry-registry';
import { PACKAGES_FOLDER } from './gantry-source';
import { addTransportBranch, branchLine, type TransportBranch } from './main-editor';
import { unscopedName } from './package-name';
import { outputTail, type RunCommand, runCommand } from './run-command';
import { renderTemplate } from './template-files';
import { HTTP_DEPENDENCIES, HTTP_OVERRIDES, WS_DEPENDENCIES } from './versions';

/** A transport `gantry add` can wire into a project. */
interface AddableTransport {
  /** The `@gantry/*` package that serves it. */
  package: string;
  /** Its peer dependencies, at the versions this repository tests with. */
  peers: Readonly<Record<string, string>>;
  overrides: Readonly<Record<string, string>>;
  /** The template in `templates/add/`, written beside main.ts. */
  file: string;
  branch: Omit<TransportBranch, 'importPath'>;
  /** What it serves on by default, for the closing message. */
  url: string;
  label: string;
}

const TRANSPORTS: Readonly<Record<string, AddableTransport>> = {
  http: {
    package: '@gantry/fastify',
    peers: HTTP_DEPENDENCIES,
    overrides: HTTP_OVERRIDES,
    file: 'serve-http.ts',
    branch: { flag: '--http', functionName: 'serveHttp' },
    url: 'http://127.0.0.1:3000/mcp',
    label: 'Streamable HTTP',
  },
  ws: {
    package: '@gantry/ws',
    peers: WS_DEPENDENCIES,
    overrides: {},
    file: 'serve-ws.ts',
    branch: { flag: '--ws', functionName: 'serveWebSocket' },
    url: 'ws://127.0.0.1:3000/mcp',
    label: 'WebSocket',
  },
};

/** The transports `gantry add` knows. */
export const ADDABLE_TRANSPORTS = Object.keys(TRANSPORTS);

export interface AddOptions {
  transport: string;
  /** main.ts, relative to `cwd`; default `src/main.ts` of the project. */
  main?: string;
  install: boolean;
  /** Where the command runs; the project is the nearest folder with a package.json. */
  cwd: string;
}

/** What was done, for the closing message. */
export interface AddResult {
  transport: string;
  label: string;
  url: string;
  flag: string;
  /** Paths relative to the project. */
  created: string;
  main: string;
  manifestChanges: string[];
  /** Why main.ts was not edited, with the lines to add instead. */
  reason?: string;
  manualLines?: string[];
  installed: boolean;
}

interface Manifest {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
  scripts?: Record<string, string>;
  [key: string]: unknown;
}

function projectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) {
      throw new CliError(
        `no package.json in ${resolve(cwd)} or above it; run gantry add inside a project (gantry new makes one)`,
        ExitCode.Usage,
      );
    }
  }
}

function sorted(entries: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The spec of the transport's package, taken from how the project gets `@gantry/core`: the
 * same registry range, or the tarball of the same version in the same folder (`vendor/`).
 */
function packageSpec(root: string, manifest: Manifest, pkg: string): string {
  const core = manifest.dependencies?.['@gantry/core'];
  if (core === undefined) {
    throw new CliError(
      'package.json has no @gantry/core dependency; run gantry add inside a Gantry project (gantry new makes one)',
      ExitCode.Usage,
    );
  }
  if (!core.startsWith('file:')) return core;
  const coreTarball = core.slice('file:'.length);
  const folder = dirname(coreTarball);
  const version = /^gantry-core-(.+)\.tgz$/.exec(basename(coreTarball))?.[1];
  const tarball = `${folder}/gantry-${pkg.slice('@gantry/'.length)}-${version}.tgz`;
  if (version === undefined || !existsSync(join(root, tarball))) {
    throw new CliError(
      `${tarball} is missing: the project gets @gantry/* from ${folder}/, which has no ${pkg}. ` +
        `Projects made by an older gantry new have only their transport's packages there (gantry new now packs every one into ${PACKAGES_FOLDER}/). ` +
        `Pack it in your Gantry checkout, then run gantry add again:\n` +
        `  npm pack --workspace ${pkg} --pack-destination ${join(root, folder)}`,
      ExitCode.Usage,
    );
  }
  return `file:${tarball}`;
}

/** The indentation of a JSON text, to write it back the same way. */
function jsonIndent(text: string): string | number {
  return /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
}

/**
 * `gantry add http|ws`: writes the transport's serving function beside main.ts, adds a flag
 * branch to main.ts (or says which lines to add), adds the package (from the project's
 * `vendor/`, or the registry range its `@gantry/core` has) and its peers to package.json, and
 * runs `npm install`. Refuses, writing nothing, when the transport is there already.
 */
export async function addTransport(options: AddOptions, run: RunCommand = runCommand): Promise<AddResult> {
  const transport = TRANSPORTS[options.transport];
  if (!transport) {
    throw new CliError(
      `cannot add "${options.transport}": choose ${ADDABLE_TRANSPORTS.join(' or ')}`,
      ExitCode.Usage,
    );
  }
  const root = projectRoot(options.cwd);
  const manifestFile = join(root, 'package.json');
  const manifestText = await readFile(manifestFile, 'utf8');
  const manifest = JSON.parse(manifestText) as Manifest;
  const mainFile = options.main ? resolve(options.cwd, options.main) : join(root, 'src', 'main.ts');
  const shownMain = relative(root, mainFile).split('\\').join('/');
  const serveFile = join(dirname(mainFile), transport.file);
  const shownServe = relative(root, serveFile).split('\\').join('/');

  const present = [
    manifest.dependencies?.[transport.package] !== undefined &&
      `package.json depends on ${transport.package}`,
    existsSync(serveFile) && `${shownServe} exists`,
  ].filter((reason): reason is string => typeof reason === 'string');
  if (present.length > 0) {
    throw new CliError(
      `${options.transport} is in this project already (${present.join(', ')}); nothing was changed`,
      ExitCode.Usage,
    );
  }
  if (!existsSync(mainFile)) {
    throw new CliError(`no ${shownMain}; pass --main <path> to the file that starts the app`, ExitCode.Usage);
  }
  const spec = packageSpec(root, manifest, transport.package);
  if (!spec.startsWith('file:') && options.install) {
    if ((await gantryOnRegistry(spec, root, run)) === 'unpublished') {
      throw new CliError(
        `@gantry/* is not published on the npm registry yet, and this project gets it from there ` +
          `(package.json: "@gantry/core": "${spec}"), so it cannot install; nothing was changed. ` +
          'Create the project from a Gantry checkout instead, which packs every @gantry/* package into its vendor/, ' +
          'and move your sources into it:\n' +
          '  cd <your Gantry checkout> && npm ci && npm run build\n' +
          `  npm run gantry -- new <new directory> --name ${manifest.name ?? basename(root)}`,
        ExitCode.Usage,
      );
    }
  }

  // main.ts: the branch, or the lines to add by hand.
  const importPath = `./${basename(transport.file, '.ts')}`;
  const branch: TransportBranch = { ...transport.branch, importPath };
  const mainText = await readFile(mainFile, 'utf8');
  const edit = addTransportBranch(mainText, branch);
  const manualLines = [
    `import { ${branch.functionName} } from '${importPath}';`,
    `${branchLine(branch, 'app')}   // in main(), before app.listen(...)`,
  ];

  const serverName = unscopedName(manifest.name ?? basename(root));
  const serveText = await renderTemplate(join(templatesRoot(), 'add', transport.file), { serverName });
  await writeFile(serveFile, serveText, { flag: 'wx' });
  let reason = edit.ok ? undefined : edit.reason;
  if (edit.ok) {
    await writeFile(mainFile, edit.text);
    // Read it back: what is on disk is what the next build sees.
    if ((await readFile(mainFile, 'utf8')) !== edit.text) {
      await writeFile(mainFile, mainText);
      reason = `${shownMain} changed on disk while it was being edited`;
    }
  }

  const changes: string[] = [];
  const dependencies: Record<string, string> = { ...manifest.dependencies, [transport.package]: spec };
  changes.push(`${transport.package} ${spec}`);
  for (const [name, range] of Object.entries(transport.peers)) {
    if (dependencies[name] === undefined) {
      dependencies[name] = range;
      changes.push(`${name} ${range}`);
    }
  }
  manifest.dependencies = sorted(dependencies);
  const overrides: Record<string, string> = { ...manifest.overrides, ...transport.overrides };
  // Tarballs depend on each other by version: the overrides point those versions at vendor/.
  if (spec.startsWith('file:')) overrides[transport.package] = spec;
  if (Object.keys(overrides).length > 0) manifest.overrides = sorted(overrides);
  const script = `start:${options.transport}`;
  if (manifest.scripts && manifest.scripts[script] === undefined) {
    manifest.scripts[script] = `node dist/main.js ${transport.branch.flag}`;
    changes.push(`script ${script}`);
  }
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, jsonIndent(manifestText))}\n`);

  if (options.install) {
    const installed = await run('npm', NPM_INSTALL_ARGS, { cwd: root }).catch((error: Error) => {
      throw new CliError(`could not run npm: ${error.message}`, ExitCode.ToolError);
    });
    if (installed.code !== 0) {
      throw new CliError(
        `npm install failed (exit code ${installed.code}) after package.json, ${shownMain} and ${shownServe} ` +
          `were written. Its output ends with:\n${outputTail(installed.output)}\nFix the cause and run npm install.`,
        ExitCode.ToolError,
      );
    }
  }
  return {
    transport: options.transport,
    label: transport.label,
    url: transport.url,
    flag: transport.branch.flag,
    created: shownServe,
    main: shownMain,
    manifestChanges: changes,
    ...(reason === undefined ? {} : { reason, manualLines }),
    installed: options.install,
  };
}
