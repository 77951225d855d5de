import type { StatelessOptions } from '../server/server-options';
import { RequestStateCodec } from './request-state';

/** The stateless options, checked, with their defaults. */
export interface StatelessSettings {
  readonly key: Buffer;
  /** A random key of this process: retries must come back to this process. */
  readonly ephemeral: boolean;
  readonly ttlMs: number;
  readonly maxRounds: number;
  readonly serverInfo: boolean;
}

/** Resolves the stateless options; throws a `RangeError` naming a bad one. */
export function resolveStatelessOptions(options: StatelessOptions = {}): StatelessSettings {
  let key: Buffer;
  let ephemeral = false;
  const given = options.requestStateKey ?? process.env.GANTRY_STATE_KEY;
  if (given === undefined || given === '') {
    key = RequestStateCodec.randomKey();
    ephemeral = true;
  } else {
    key = typeof given === 'string' ? Buffer.from(given, 'utf8') : Buffer.from(given);
    if (key.length < 32) {
      throw new RangeError(
        `stateless.requestStateKey must be at least 32 bytes (HMAC-SHA256); got ${key.length}`,
      );
    }
  }
  const ttlMs = options.requestStateTtlMs ?? 600_000;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`stateless.requestStateTtlMs must be a positive integer, got ${String(ttlMs)}`);
  const maxRounds = options.maxInputRounds ?? 8;
  if (!Number.isInteger(maxRounds) || maxRounds < 1)
    throw new RangeError(`stateless.maxInputRounds must be a positive integer, got ${String(maxRounds)}`);
  return { key, ephemeral, ttlMs, maxRounds, serverInfo: options.serverInfoInResults ?? true };
}
