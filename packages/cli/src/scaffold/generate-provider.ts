import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { templatesRoot } from './cli-package';
import { addProvider } from './module-editor';
import { providerNames } from './provider-names';
import { renderTemplate } from './template-files';

/** What `gantry generate` makes. */
export const PROVIDER_KINDS = ['tool', 'resource', 'prompt'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface GenerateOptions {
  kind: string;
  name: string;
  /** The module file to register the class in, relative to `cwd`; default `src/app.module.ts` of the project. */
  module?: string;
  /** Where the command runs; the project is the nearest folder with a package.json. */
  cwd: string;
}

/** What was written, and the module edit or the lines to add by hand. */
export interface GenerateResult {
  className: string;
  /** Written files, relative to the project. */
  files: string[];
  /** The module file, relative to the project. */
  module: string;
  registered: boolean;
  /** Why the module was not edited, with `manualLines` to add instead. */
  reason?: string;
  manualLines?: string[];
}

/** The nearest directory from `cwd` upwards that has a package.json. */
function projectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) {
      throw new CliError(
        `no package.json in ${resolve(cwd)} or above it; run gantry generate inside a project (gantry new makes one)`,
        ExitCode.Usage,
      );
    }
  }
}

/** `./weather.tool` from the module's folder to the new file (without `.ts`). */
function importPathFrom(fromDir: string, file: string): string {
  const path = relative(fromDir, file).split('\\').join('/').replace(/\.ts$/, '');
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * `gantry generate <kind> <name>`: writes `src/<name>.<kind>.ts` and `test/<name>.<kind>.spec.ts`
 * from the templates, then registers the class in the module. Refuses before writing anything
 * when a name is invalid, a file exists or the module is missing. When the module cannot be
 * edited safely, the files are still written and the result carries the lines to add by hand.
 */
export async function generateProvider(options: GenerateOptions): Promise<GenerateResult> {
  if (!(PROVIDER_KINDS as readonly string[]).includes(options.kind)) {
    throw new CliError(
      `cannot generate "${options.kind}": choose one of ${PROVIDER_KINDS.join(', ')}`,
      ExitCode.Usage,
    );
  }
  const kind = options.kind as ProviderKind;
  const names = providerNames(options.name);
  const root = projectRoot(options.cwd);
  const className = `${names.pascal}${kind.charAt(0).toUpperCase()}${kind.slice(1)}`;

  const source = join(root, 'src', `${names.kebab}.${kind}.ts`);
  const spec = join(root, 'test', `${names.kebab}.${kind}.spec.ts`);
  for (const file of [source, spec]) {
    if (existsSync(file)) {
      throw new CliError(
        `${relative(root, file)} exists already; choose another name or remove the file`,
        ExitCode.Usage,
      );
    }
  }
  const moduleFile = options.module
    ? resolve(options.cwd, options.module)
    : join(root, 'src', 'app.module.ts');
  const shownModule = relative(root, moduleFile) || moduleFile;
  if (!existsSync(moduleFile)) {
    throw new CliError(
      `no module at ${shownModule}; pass --module <path> to the module that should provide ${className}`,
      ExitCode.Usage,
    );
  }

  const values = {
    ...names,
    specImport: importPathFrom(dirname(spec), source),
  };
  const templates = join(templatesRoot(), 'generate');
  const sourceText = await renderTemplate(join(templates, `${kind}.ts.tpl`), values);
  const specText = await renderTemplate(join(templates, `${kind}.spec.ts.tpl`), values);
  await mkdir(dirname(source), { recursive: true });
  await mkdir(dirname(spec), { recursive: true });
  // 'wx': never replace a file that appeared since the check above.
  await writeFile(source, sourceText, { flag: 'wx' });
  await writeFile(spec, specText, { flag: 'wx' });
  const files = [source, spec].map((file) => relative(root, file).split('\\').join('/'));

  const importPath = importPathFrom(dirname(moduleFile), source);
  const manualLines = [
    `import { ${className} } from '${importPath}';`,
    `@Module({ providers: [/* the providers it has, then */ ${className}] })`,
  ];
  const original = await readFile(moduleFile, 'utf8');
  const edit = addProvider(original, className, importPath);
  if (!edit.ok) {
    return { className, files, module: shownModule, registered: false, reason: edit.reason, manualLines };
  }
  if (edit.changed) {
    await writeFile(moduleFile, edit.text);
    // Read it back: what is on disk is what the next build sees.
    if ((await readFile(moduleFile, 'utf8')) !== edit.text) {
      await writeFile(moduleFile, original);
      return {
        className,
        files,
        module: shownModule,
        registered: false,
        reason: 'the module changed on disk while it was being edited',
        manualLines,
      };
    }
  }
  return { className, files, module: shownModule, registered: true };
}
