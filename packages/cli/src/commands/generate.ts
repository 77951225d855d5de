import type { Command } from 'commander';
import { type GenerateResult, generateProvider, PROVIDER_KINDS } from '../scaffold/generate-provider';

interface GenerateFlags {
  module?: string;
}

/** What `gantry generate` prints: the files, and the module edit or the lines to add by hand. */
export function describeGenerate(result: GenerateResult): string {
  const lines = result.files.map((file) => `created ${file}`);
  if (result.registered) {
    lines.push(`updated ${result.module}: ${result.className} is in its providers`);
  } else {
    lines.push(
      `note: ${result.className} was not added to ${result.module}, because ${result.reason}.`,
      'Add it yourself: the import',
      `  ${result.manualLines?.[0]}`,
      `and ${result.className} in the providers of the module's @Module({ ... }):`,
      `  ${result.manualLines?.[1]}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `gantry generate tool|resource|prompt <name> [--module <path>]`. */
export function registerGenerateCommand(program: Command): void {
  program
    .command('generate')
    .alias('g')
    .description('Add a tool, resource or prompt class with its test, and register it in the module')
    .argument('<kind>', PROVIDER_KINDS.join(', '))
    .argument('<name>', 'its name, in kebab-case, snake_case or camelCase (e.g. get-forecast)')
    .option('--module <path>', 'the module file that provides it (default: src/app.module.ts)')
    .addHelpText(
      'after',
      `
Run it inside a project. "gantry generate tool get-forecast" writes
  src/get-forecast.tool.ts         class GetForecastTool, method getForecast (tool get_forecast)
                                   with a DTO, GetForecastArgs
  test/get-forecast.tool.spec.ts   its test, through an in-memory client
and adds GetForecastTool to the providers of src/app.module.ts. When the module cannot be
edited safely (its providers are not an array literal, say), it prints the lines to add.
Existing files are never replaced.`,
    )
    .action(async (kind: string, name: string, flags: GenerateFlags) => {
      const result = await generateProvider({ kind, name, module: flags.module, cwd: process.cwd() });
      process.stdout.write(describeGenerate(result));
    });
}
