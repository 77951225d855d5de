import 'reflect-metadata';

export { GantryApplication } from './application/gantry-application';
export { GantryFactory } from './application/gantry-factory';
export type {
  InjectInitialize,
  InjectInput,
  InjectMessage,
  InjectOptions,
  InjectResponse,
  InjectResult,
  InjectStateless,
} from './application/inject';
export type { ToolUiOptions, UiVisibility } from './apps/tool-ui';
export {
  supportsUi,
  UI_EXTENSION_ID,
  UI_MIME_TYPE,
  UI_RESOURCE_URI_META_KEY,
  type UiClientCapability,
  uiCapability,
} from './apps/ui-constants';
export { UiResource, type UiResourceOptions } from './apps/ui-resource.decorator';
export type { UiCsp, UiPermissions, UiPresentation } from './apps/ui-resource-meta';
export { generateViewTypes, schemaToTypeScript, type ViewTypesOptions } from './apps/view-types';
export type {
  ClusterEventStore,
  ClusterLink,
  ClusterMessage,
  ClusterReceiver,
  ClusterSessionStore,
  SessionRecord,
  StreamFollower,
  StreamSink,
} from './cluster/cluster';
export { isStreamOfSession, sessionStreamId } from './cluster/cluster';
export type { ElicitOptions, ElicitOutcome, UrlElicitOutcome } from './context/elicitation';
export {
  type ContextResources,
  McpContext,
  type ProtocolEra,
  type SampleOptions,
  type SessionInfo,
  type TraceContext,
} from './context/mcp-context';
export { Catch } from './decorators/catch.decorator';
export { Complete, type CompleteTarget } from './decorators/complete.decorator';
export { Description } from './decorators/description.decorator';
export { Header } from './decorators/header.decorator';
export { Inject } from './decorators/inject.decorator';
export { Injectable } from './decorators/injectable.decorator';
export { Module } from './decorators/module.decorator';
export { OptionTitles } from './decorators/option-titles.decorator';
export { Args, Ctx, Param, type ParamDescriptor, Uri } from './decorators/params.decorator';
export { Prompt, type PromptOptions } from './decorators/prompt.decorator';
export { Resource, type ResourceOptions } from './decorators/resource.decorator';
export { ResourceList } from './decorators/resource-list.decorator';
export { Title } from './decorators/title.decorator';
export { Tool, type ToolDescriptor, type ToolOptions } from './decorators/tool.decorator';
export { UseFilters } from './decorators/use-filters.decorator';
export { UseGuards } from './decorators/use-guards.decorator';
export { UseInterceptors } from './decorators/use-interceptors.decorator';
export type {
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
} from './di/lifecycle';
export type {
  AbstractType,
  ClassProvider,
  DynamicModule,
  ExistingProvider,
  FactoryProvider,
  InjectionToken,
  ModuleMetadata,
  Provider,
  Type,
  ValueProvider,
} from './di/tokens';
export type {
  CallHandler,
  CanActivate,
  EnhancerRef,
  ExceptionFilter,
  Interceptor,
} from './execution/enhancers';
export type { ExecutionContext, HandlerKind } from './execution/execution-context';
export { toGetPromptResult } from './execution/prompt-result';
export { toReadResourceResult } from './execution/resource-result';
export { toCallToolResult } from './execution/tool-result';
export { ClientExtensions } from './extensions/client-extensions';
export {
  Extension,
  ExtensionMethod,
  type ExtensionOptions,
  isExtensionId,
} from './extensions/extension.decorator';
export type { ExtensionDefinition, ExtensionMethodHandler } from './extensions/extension-scanner';
export { DEFAULT_IPV6_SUBNET, ipKey, resolveIpv6Subnet } from './limits/ip-key';
export { Concurrency, type ConcurrencyOptions, RateLimit, Timeout } from './limits/limit-decorators';
export type {
  LimitsOptions,
  RateLimitBackend,
  RateLimitBackendOptions,
  RateLimitBy,
  RateLimitOptions,
  RateLimitOutcome,
} from './limits/limit-types';
export { LimitErrorCode, RETRY_AFTER_META } from './limits/limits-runtime';
export { memoryRateLimiter, principalKey, rateLimitBackendOf } from './limits/rate-limits';
export {
  isDefaultLogger,
  type LogBindings,
  type Logger,
  type LoggerLevel,
  loggerWith,
  type PinoLike,
  pinoLogger,
  pinoOf,
  routeDefaultLogger,
  StderrLogger,
  silentLogger,
} from './logger';
export type { CompletionContext, CompletionValues } from './registry/completion';
export { HandlerCollection } from './registry/handler-collection';
export type { PromptDefinition } from './registry/prompt-definition';
export { type Registration, Registry, type RegistryNotices } from './registry/registry';
export type { ResourceTemplateDefinition, StaticResourceDefinition } from './registry/resource-definition';
export type { ToolDefinition } from './registry/tool-definition';
export { UriTemplate, UriTemplateError, type UriVariables } from './resources/uri-template';
export {
  type ArgsValidator,
  checkElicitationSchema,
  type ElicitationSchema,
  elicitationSchemaFromClass,
  jsonSchemaFromClass,
  type ValidationIssue,
  type ValidationOutcome,
} from './schema';
export { type ConnectOptions, GantryServer } from './server/gantry-server';
export { DEFAULT_MAX_INFLIGHT_PER_SESSION } from './server/inflight-caps';
export { DEFAULT_MAX_PARAMS_DEPTH } from './server/params-depth';
export type { GantryServerOptions, StatelessOptions } from './server/server-options';
export { ServerSession, type StreamControls } from './server/server-session';
export { Skill, type SkillBody, type SkillOptions } from './skills/skill.decorator';
export {
  DIRECTORY_MIME_TYPE,
  type DirectoryChild,
  SKILL_LIMITS,
  SKILLS_EXTENSION_ID,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
  type SkillsCacheOptions,
  type SkillsModuleOptions,
} from './skills/skill-types';
export { SkillsExtension } from './skills/skills.extension';
export { SkillsModule } from './skills/skills.module';
export { type ListedSkillResource, SkillsCatalog, type SkillsReload } from './skills/skills-catalog';
export type { CacheDefaults, CacheHint } from './stateless/cache-hint';
export { InputRequiredSignal } from './stateless/input-round';
export { collectHeaderParams, type HeaderParam } from './stateless/mcp-header';
export { applyChange, MemoryTaskStore } from './tasks/memory-task-store';
export type { TasksOptions } from './tasks/task-options';
export type { StoredTask, TaskChange, TaskError, TaskPage, TaskStore } from './tasks/task-store';
export { type TaskListener, TaskWatchers } from './tasks/task-watchers';
export { withTraceContext } from './telemetry/propagation';
export { TELEMETRY_SCOPE } from './telemetry/telemetry';
export type { TelemetryOptions } from './telemetry/telemetry-options';
export {
  API_KEY_CHALLENGE,
  ApiKeyAuth,
  type ApiKeyEntry,
  type ApiKeyIdentity,
  type ApiKeyOutcome,
  type ApiKeyRequest,
  type ApiKeysOptions,
  apiKeys,
  constantTimeEqual,
  isApiKeyAuth,
  MIN_API_KEY_LENGTH,
} from './transports/api-keys';
export {
  type ClusterAccess,
  CONNECTION_HOST,
  type Connection,
  type ConnectionHost,
  type ConnectionMode,
  connectionHostOf,
  type Exchange,
  type InflightProblem,
  type SessionReplica,
  type StreamKind,
  type TransportInfo,
  type TransportTelemetry,
} from './transports/connection-host';
export {
  type HealthOption,
  type HealthPaths,
  type ProbeAnswer,
  probeAnswer,
  RETRY_AFTER_SECONDS,
  type Readiness,
  type ReadinessCheck,
  resolveHealthPaths,
} from './transports/health';
export {
  HostOriginPolicy,
  type HostOriginPolicyOptions,
  type HostOriginRequest,
  isLoopbackAddress,
  isLoopbackName,
  isLoopbackOrigin,
} from './transports/host-origin-policy';
export type { McpListener } from './transports/listener';
export {
  DEFAULT_STDIO_FLOW,
  type StdioOptions,
  StdioServerTransport,
  type StdioTransportOptions,
  stdio,
} from './transports/stdio';
export {
  clientAddress,
  compileTrustProxy,
  type TrustFunction,
  type TrustProxy,
} from './transports/trust-proxy';
