/** Where Gantry writes its own diagnostics. Never stdout: on stdio that is the protocol stream. */
export interface Logger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LoggerLevel = (typeof LEVELS)[number];

/** Writes one line per entry to stderr: `[gantry] warn: message details…`. */
export class StderrLogger implements Logger {
  private readonly threshold: number;

  constructor(
    private readonly prefix = 'gantry',
    level: LoggerLevel = 'info',
  ) {
    this.threshold = LEVELS.indexOf(level);
  }

  debug(message: string, ...details: unknown[]): void {
    this.write(0, message, details);
  }
  info(message: string, ...details: unknown[]): void {
    this.write(1, message, details);
  }
  warn(message: string, ...details: unknown[]): void {
    this.write(2, message, details);
  }
  error(message: string, ...details: unknown[]): void {
    this.write(3, message, details);
  }

  private write(level: number, message: string, details: unknown[]): void {
    if (level < this.threshold) return;
    const rest = details.map((d) =>
      d instanceof Error ? (d.stack ?? d.message) : typeof d === 'string' ? d : safeJson(d),
    );
    process.stderr.write(`[${this.prefix}] ${LEVELS[level]}: ${[message, ...rest].join(' ')}\n`);
  }
}

/** A logger that drops everything (`logger: false`). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
