/** How `gantry new` shows progress: a spinner on a terminal, plain lines otherwise. */
export interface Reporter {
  /** One line of progress or result. */
  line(text: string): void;
  /** Runs a long step, showing `title` while it runs and `done(result)` (or `title`) when it ends. */
  task<T>(title: string, work: () => Promise<T>, done?: (result: T) => string): Promise<T>;
}

/** Writes plain lines: for pipes, CI logs and tests. */
export function plainReporter(write: (text: string) => void): Reporter {
  return {
    line: (text) => write(`${text}\n`),
    async task(title, work, done) {
      write(`${title}...\n`);
      const started = Date.now();
      const result = await work();
      write(`${done ? done(result) : title} (${seconds(Date.now() - started)})\n`);
      return result;
    },
  };
}

type Clack = typeof import('@clack/prompts');

/** Spinners and log lines from @clack/prompts, for a terminal. */
export function clackReporter(clack: Clack): Reporter {
  return {
    line: (text) => clack.log.message(text),
    async task(title, work, done) {
      const spinner = clack.spinner();
      spinner.start(title);
      const started = Date.now();
      try {
        const result = await work();
        spinner.stop(`${done ? done(result) : title} (${seconds(Date.now() - started)})`);
        return result;
      } catch (error) {
        spinner.error(`${title}: failed`);
        throw error;
      }
    },
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
