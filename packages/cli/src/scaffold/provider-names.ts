import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';

/** The names `gantry generate` derives from the one it is given. */
export interface ProviderNames {
  /** File names and URI schemes: `get-forecast`. */
  kebab: string;
  /** Class names: `GetForecast` (+ `Tool`, `Args`, …). */
  pascal: string;
  /** The method: `getForecast`. */
  camel: string;
  /** The tool or prompt name clients see: the method's name in snake_case, `get_forecast`. */
  wireName: string;
}

const VALID_NAME = /^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$/;

/**
 * How Gantry names a tool or prompt after its method (`snakeCase` in
 * packages/core/src/registry/tool-name.ts; repeated here because the CLI does not load core):
 * `getForecast` → `get_forecast`, `getHTTPStatus` → `get_http_status`.
 */
function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * Splits a name given as kebab-case, snake_case, camelCase or PascalCase into words and
 * spells it each way `gantry generate` needs. Throws a `CliError` for anything else.
 */
export function providerNames(input: string): ProviderNames {
  if (!VALID_NAME.test(input)) {
    throw new CliError(
      `invalid name "${input}": a name starts with a letter and has only letters and digits, ` +
        'with words separated by "-" or "_" or written in camelCase (e.g. get-forecast)',
      ExitCode.Usage,
    );
  }
  const words = snakeCase(input).split(/[-_]+/);
  const camel = words[0] + words.slice(1).map(capitalize).join('');
  return {
    kebab: words.join('-'),
    pascal: words.map(capitalize).join(''),
    camel,
    wireName: snakeCase(camel),
  };
}
