import { ExitCode } from './exit-codes';

/** An error the CLI reports as one clear line on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.Usage,
  ) {
    super(message);
  }
}
