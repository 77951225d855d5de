import type { Icon } from '@gantry/protocol';
import type { ClusterLink } from '../cluster/cluster';
import type { LimitsOptions } from '../limits/limit-types';
import type { Logger } from '../logger';
import type { CacheDefaults } from '../stateless/cache-hint';
import type { TasksOptions } from '../tasks/task-options';
import type { TelemetryOptions } from '../telemetry/telemetry-options';

/** Options of the stateless era (MCP 2026-07-28). */
export interface StatelessOptions {
  /**
   * Key that signs `requestState` (HMAC-SHA256), at least 32 bytes. Every node that may get a
   * retry needs the same key. Default: `GANTRY_STATE_KEY` from the environment, else a random
   * key of this server (one node only: the first HTTP or WebSocket listener of the process
   * warns about it, once).
   */
  requestStateKey?: string | Uint8Array;
  /** How long a client has to answer an `input_required` result; default 10 minutes. */
  requestStateTtlMs?: number;
  /** Most `input_required` rounds one call may take; default 8. */
  maxInputRounds?: number;
  /** Put `serverInfo` in every result's `_meta`; default true. */
  serverInfoInResults?: boolean;
}

/** What `GantryFactory.create` takes besides the root module. */
export interface GantryServerOptions {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title` (2025-06-18+). */
  title?: string;
  /** `serverInfo.description` (2025-11-25). */
  description?: string;
  /** `serverInfo.websiteUrl` (2025-11-25). */
  websiteUrl?: string;
  /** `serverInfo.icons` (2025-11-25). */
  icons?: Icon[];
  /** Usage hints for the model, returned by `initialize`. */
  instructions?: string;
  /** Items per page of list results; default 100. */
  pageSize?: number;
  /** Timeout of requests the server sends to clients; default 60 s. */
  requestTimeoutMs?: number;
  /**
   * Deepest nesting of objects and arrays accepted in a request's `params` (the params object
   * is level 1); a deeper request is answered −32602 before any handler, validator or digest
   * sees it, on every transport and in both eras. Default 64 (`DEFAULT_MAX_PARAMS_DEPTH`):
   * far more than any tool or prompt schema needs, far less than what overflows the stack in
   * the recursive validation that follows. At most 1,000.
   */
  maxParamsDepth?: number;
  /**
   * Gantry's own diagnostics: any object with `debug`, `info`, `warn` and `error` (winston's
   * loggers fit as they are; wrap pino in `pinoLogger(pino)`). Default: stderr lines at
   * `LOG_LEVEL` (default info), which the `http()` listener routes to Fastify's pino. `false`
   * silences it.
   */
  logger?: Logger | false;
  /**
   * Declare these capabilities even when nothing of the kind exists at bootstrap, for apps
   * that add handlers at runtime (`app.registry.add()`). Otherwise they follow what is registered.
   */
  capabilities?: { tools?: boolean; resources?: boolean; prompts?: boolean };
  /** The stateless era (2026-07-28): the `requestState` key, its lifetime, input rounds. */
  stateless?: StatelessOptions;
  /**
   * Caching hints (`ttlMs`, `cacheScope`) of stateless-era results, per kind. Decorators may
   * shorten a list's ttl or make it private (`@Tool({ cache })`); results that can depend on
   * the caller (guards, authenticated reads) are always private.
   */
  cache?: CacheDefaults;
  /**
   * Serve one deployment from several nodes: sessions, resumable streams and notifications go
   * through this link (`redisCluster()` of `@gantry/redis`). The application starts it at
   * bootstrap (failing when its backend is unreachable) and closes it on `close()`. Needs a
   * shared `requestState` key.
   */
  cluster?: ClusterLink;
  /**
   * How long in-flight requests may run on once the application drains (`app.close()`, or a
   * signal with `enableShutdownHooks()`): their responses are delivered; what still runs after
   * this is cancelled through `ctx.signal`. 0 cancels at once. Default 10 000 ms.
   */
  shutdownGraceMs?: number;
  /**
   * How long a draining application reports not ready (`GET /readyz` 503) while still accepting
   * new work, before it refuses it: time for a load balancer (e.g. Kubernetes endpoints) to stop
   * sending any. Default 0.
   */
  drainDelayMs?: number;
  /**
   * OpenTelemetry: spans and metrics go to the SDK the process registered (none: no-ops); these
   * options add detailed spans or name other providers.
   */
  telemetry?: TelemetryOptions;
  /**
   * Tasks (`@Tool({ task })`): where they are stored (memory; the cluster's store with
   * `@gantry/redis`), their ttl, poll interval, lease and limits. Giving it turns tasks on even
   * before any task tool is registered.
   */
  tasks?: TasksOptions;
  /**
   * Defaults for every tool: `timeoutMs` (none by default), one global `rateLimit`, and what a
   * failing rate-limit store means (`onBackendError`, default `allow`). With a `cluster`,
   * rate limits count in its store, so they hold across nodes. See docs/limits.md.
   */
  limits?: LimitsOptions;
}
