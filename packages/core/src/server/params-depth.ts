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
 * level 1). Iterative, with an explicit stack, so that any depth JSON.parse accepts (V8's
 * parser is not recursive) is measured without overflowing the call stack; it stops at the
 * first value past the limit.
 */
export function nestsDeeperThan(root: unknown, limit: number): boolean {
  if (typeof root !== 'object' || root === null) return false;
  if (limit < 1) return true;
  // Pairs of (value, its depth), in one array: about 100 ns for the params of a typical call.
  const stack: unknown[] = [root, 1];
  while (stack.length > 0) {
    const childDepth = (stack.pop() as number) + 1;
    const value = stack.pop() as object;
    const children: readonly unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child !== 'object' || child === null) continue;
      if (childDepth > limit) return true;
      stack.push(child, childDepth);
    }
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
