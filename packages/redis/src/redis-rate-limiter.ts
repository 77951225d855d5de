import { type RateLimitBackend, type RateLimitBackendOptions, rateLimitBackendOf } from '@gantry/core';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { RedisConnection } from './options';

/**
 * A rate-limit store shared by every node: `RateLimiterRedis` of rate-limiter-flexible on the
 * link's command client (one atomic script per consumed point). Keys are
 * `<prefix><keyPrefix>:<key>`, e.g. `gantry:rl:tool:search:principal:principal:sub:alice`.
 * While Redis is down a call rejects at once (no offline queue); the application then allows
 * or denies the call (`limits.onBackendError`).
 */
export function redisRateLimiter(
  redis: RedisConnection,
  prefix: string,
  options: RateLimitBackendOptions,
): RateLimitBackend {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}${options.keyPrefix}`,
    points: options.points,
    duration: options.duration,
    rejectIfRedisNotReady: true,
  });
  return rateLimitBackendOf(limiter);
}
