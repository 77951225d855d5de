import { InvalidParamsError } from '@gantry/protocol';

/**
 * Default `maxParamsDepth`: 64 levels, counting the params object as level 1. Tool and prompt
 * schemas nest a handful of levels, and MCP's own structures in params (`_meta`,
 * `inputResponses` with their answers) add three or four, so 64 refuses nothing real; yet it
 * is far below the depth at which the recursive code after it (class-transformer,
 * class-validator, JSON.stringify, the requestState digest) overflows the stack: thousands.
 */
export const DEFAULT_MAX_PARAMS_DEPTH = 64;

/**
 * The largest `maxParamsDepth` accepted. On Node's default stack, class-transformer overflows
 * on tool arguments a little past 2,000 levels of nested arrays (the requestState digest near
 * 2,500, JSON.stringify near 4,000); 1,000 keeps a margin for the frames that transports,
 * interceptors and nested DTOs add.
 */
export const MAX_PARAMS_DEPTH_LIMIT = 1000;

/** Checks the `maxParamsDepth` option; returns the limit to use. */
export function resolveMaxParamsDepth(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PARAMS_DEPTH;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PARAMS_DEPTH_LIMIT) {
    throw new RangeError(
      `maxParamsDepth must be an integer from 1 to ${MAX_PARAMS_DEPTH_LIMIT}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * True when `root` nests objects and arrays more than `limit` levels deep (`root` itself is
 * level 1). It recurses at most `limit` (≤ MAX_PARAMS_DEPTH_LIMIT) frames deep, whatever the
 * input's depth, so any depth JSON.parse accepts (V8's parser is not recursive) is measured
 * without overflowing the call stack; it stops at the first value past the limit. It walks
 * with `for…in` and indexes, allocating nothing: it runs on every request.
 */
export function nestsDeeperThan(root: unknown, limit: number): boolean {
  if (typeof root !== 'object' || root === null) return false;
  if (limit < 1) return true;
  return childrenDeeper(root, 2, limit);
}

/** True when a child of `value` (each at `depth`), or something inside one, is past `limit`. */
function childrenDeeper(value: object, depth: number, limit: number): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (
        typeof child === 'object' &&
        child !== null &&
        (depth > limit || childrenDeeper(child, depth + 1, limit))
      )
        return true;
    }
    return false;
  }
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (
      typeof child === 'object' &&
      child !== null &&
      (depth > limit || childrenDeeper(child, depth + 1, limit))
    )
      return true;
  }
  return false;
}

/**
 * Refuses a request whose params nest deeper than `limit` levels with −32602, before any
 * handler, validator or digest walks them recursively (JSON-RPC 2.0 §5.1: invalid method
 * parameters).
 */
export function checkParamsDepth(method: string, params: unknown, limit: number): void {
  if (!nestsDeeperThan(params, limit)) return;
  throw new InvalidParamsError(
    `Invalid params: the params of ${method} nest deeper than ${limit} levels (the server's limit, maxParamsDepth)`,
    { maxParamsDepth: limit },
  );
}
