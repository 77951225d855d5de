/** Where Gantry writes its own diagnostics. Never stdout: on stdio that is the protocol stream. */
export interface Logger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
  /**
   * A logger whose every line also carries `bindings` (pino's `child`). Optional: Gantry calls
   * it for the lines about one request (`sessionId`, `requestId`), and a logger without it
   * writes those lines as they are.
   */
  child?(bindings: LogBindings): Logger;
}

/** Fields bound to every line of a child logger: `{ sessionId, requestId }` for a request's. */
export type LogBindings = Readonly<Record<string, string | number>>;

/** `logger` with `bindings` on every line, where it can bind them; else `logger` itself. */
export function loggerWith(logger: Logger, bindings: LogBindings): Logger {
  return logger.child ? logger.child(bindings) : logger;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LoggerLevel = (typeof LEVELS)[number];

/** Writes one line per entry to stderr: `[gantry] warn: message details…`. */
export class StderrLogger implements Logger {
  private readonly threshold: number;

  /** `key=value` of a child's bindings, written after each of its lines; none for the root. */
  private fields: readonly string[] = [];

  constructor(
    private readonly prefix = 'gantry',
    private readonly level: LoggerLevel = 'info',
  ) {
    this.threshold = LEVELS.indexOf(level);
  }

  child(bindings: LogBindings): StderrLogger {
    const child = new StderrLogger(this.prefix, this.level);
    child.fields = [...this.fields, ...Object.entries(bindings).map(([key, value]) => `${key}=${value}`)];
    return child;
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
    const bound = this.fields.length === 0 ? '' : ` (${this.fields.join(' ')})`;
    process.stderr.write(`[${this.prefix}] ${LEVELS[level]}: ${[message, ...rest].join(' ')}${bound}\n`);
  }
}

/** A logger that drops everything (`logger: false`). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * The part of a pino logger (or any logger with pino's call order: an object of fields first,
 * then the message) that {@link pinoLogger} uses.
 */
export interface PinoLike {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** pino's: a logger that adds `bindings` to every line. */
  child?(bindings: object): PinoLike;
}

const PINO = Symbol('@gantry/core.pino');

/**
 * Gantry's diagnostics through a pino logger: `logger.warn('message', error, detail)` becomes
 * `pino.warn({ err: error, details: [detail] }, 'message')`, so errors keep their stack under
 * pino's `err` serializer. Under `http()`, Fastify then logs its requests to the same pino.
 *
 * On stdio, give pino a destination other than stdout (`pino(pino.destination(2))`): stdout
 * carries the protocol, and pino writes to its file descriptor directly.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const app = await GantryFactory.create(AppModule, { name, version, logger: pinoLogger(pino({ level: 'debug' })) });
 * ```
 */
export function pinoLogger(pino: PinoLike): Logger {
  if (
    !pino ||
    !LEVELS.every((level) => typeof (pino as unknown as Record<string, unknown>)[level] === 'function')
  ) {
    throw new TypeError(
      'pinoLogger(pino): expected a pino logger (with debug, info, warn and error methods)',
    );
  }
  const write =
    (level: LoggerLevel) =>
    (message: string, ...details: unknown[]) => {
      if (details.length === 0) return pino[level]({}, message);
      const err = details.find((d) => d instanceof Error);
      const rest = details.filter((d) => d !== err);
      pino[level]({ ...(err !== undefined && { err }), ...(rest.length > 0 && { details: rest }) }, message);
    };
  const child = (bindings: LogBindings): Logger =>
    pinoLogger(typeof pino.child === 'function' ? pino.child(bindings) : boundPino(pino, bindings));
  return Object.assign(
    { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child },
    { [PINO]: pino },
  );
}

/** A pino-like logger without `child`: `bindings` merged into the fields of every line. */
function boundPino(pino: PinoLike, bindings: LogBindings): PinoLike {
  const bound = (level: LoggerLevel) => (fields: object, message?: string) =>
    pino[level]({ ...bindings, ...fields }, message);
  return { debug: bound('debug'), info: bound('info'), warn: bound('warn'), error: bound('error') };
}

/** The pino logger behind a {@link pinoLogger}, for transports that log to it too (Fastify). */
export function pinoOf(logger: Logger): PinoLike | undefined {
  return (logger as { [PINO]?: PinoLike })[PINO];
}

/**
 * The logger of an application created without a `logger` option: stderr lines at `LOG_LEVEL`
 * (default `info`), until a network listener routes it to its own (the `http()` listener: to
 * Fastify's pino). Only this default is ever routed: a logger the user chose stays.
 */
export class DefaultLogger implements Logger {
  private target: Logger = new StderrLogger('gantry', levelFromEnvironment());

  debug(message: string, ...details: unknown[]): void {
    this.target.debug(message, ...details);
  }
  info(message: string, ...details: unknown[]): void {
    this.target.info(message, ...details);
  }
  warn(message: string, ...details: unknown[]): void {
    this.target.warn(message, ...details);
  }
  error(message: string, ...details: unknown[]): void {
    this.target.error(message, ...details);
  }

  /** Bound to whatever this logger writes to when the line is written, routed or not. */
  child(bindings: LogBindings): Logger {
    const at =
      (level: LoggerLevel) =>
      (message: string, ...details: unknown[]) =>
        loggerWith(this.target, bindings)[level](message, ...details);
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }

  /** @internal Sends everything to `target` from now on. */
  routeTo(target: Logger): void {
    this.target = target;
  }
}

/**
 * Routes an application's diagnostics to `target` when the application uses the default logger
 * (created without `logger`); true when it did. `http()` calls it with Fastify's pino.
 */
export function routeDefaultLogger(appLogger: Logger, target: Logger): boolean {
  if (!(appLogger instanceof DefaultLogger)) return false;
  appLogger.routeTo(target);
  return true;
}

/** Whether the application's logger is the default one (no `logger` option given). */
export function isDefaultLogger(logger: Logger): boolean {
  return logger instanceof DefaultLogger;
}

/** `LOG_LEVEL` as a Gantry level (pino's `trace` → debug, `fatal` → error, `silent` → error); default info. */
function levelFromEnvironment(): LoggerLevel {
  const value = process.env.LOG_LEVEL?.toLowerCase();
  if (value === 'trace') return 'debug';
  if (value === 'fatal' || value === 'silent') return 'error';
  return (LEVELS as readonly string[]).includes(value ?? '') ? (value as LoggerLevel) : 'info';
}

/**
 * Whether a {@link pinoLogger}'s pino writes to stdout (`pino()` with no destination writes to
 * file descriptor 1 directly, past stdio's guard of `process.stdout`). Best effort: a pino
 * transport running in a worker is not seen.
 */
export function logsToStdout(logger: Logger): boolean {
  const pino = pinoOf(logger);
  for (let o: object | null = pino ?? null; o; o = Object.getPrototypeOf(o)) {
    for (const symbol of Object.getOwnPropertySymbols(o)) {
      // pino keeps its destination under a private Symbol('pino.stream').
      if (symbol.description !== 'pino.stream') continue;
      const stream = (o as Record<symbol, { fd?: unknown } | undefined>)[symbol];
      return stream === (process.stdout as unknown) || stream?.fd === 1;
    }
  }
  return false;
}
