/**
 * Ends the command with an exit code outside `ExitCode`: the code of the server `gantry dev`
 * ran, or 130 after Ctrl+C. `message`, when not empty, is printed as `gantry: <message>`.
 */
export class ProcessExit extends Error {
  override name = 'ProcessExit';

  constructor(
    readonly exitCode: number,
    message = '',
  ) {
    super(message);
  }
}
