/**
 * MCP session-era types (2025-11-25 `schema.ts`). Differences in older revisions that change
 * behaviour are noted on the fields they touch; each revision's changelog (MCP specification, Key Changes) lists them all.
 */
import { isRequestId, type Meta, type ProgressToken, type RequestId, type Result } from './jsonrpc';

/** 2025-11-25: icons on implementations, tools, prompts, resources and templates. */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** `name` is the programmatic id; `title` (2025-06-18+) the display name. */
export interface BaseMetadata {
  name: string;
  title?: string;
}

/** `clientInfo` / `serverInfo`. `description`, `websiteUrl`, `icons`: 2025-11-25. */
export interface Implementation extends BaseMetadata {
  version: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  /** `{}` means form mode only (2025-11-25). */
  elicitation?: { form?: object; url?: object };
  tasks?: object;
  experimental?: { [key: string]: object };
  /** Extensions the client supports, id → settings (MCP 2026-07-28, Basic › Extensions; SEP-2133). */
  extensions?: { [id: string]: object };
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: object;
  /** Declared since 2025-03-26; 2024-11-05 clients ignore it. */
  completions?: object;
  tasks?: object;
  experimental?: { [key: string]: object };
  /** Extensions the server supports, id → settings (MCP 2026-07-28, Basic › Extensions; SEP-2133). */
  extensions?: { [id: string]: object };
  [key: string]: unknown;
}

export interface InitializeRequestParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  _meta?: Meta;
}

export interface InitializeResult extends Result {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  /** 2025-06-18+. */
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** 2025-03-26+. */
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}

export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}

export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface Resource extends BaseMetadata {
  uri: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ResourceTemplate extends BaseMetadata {
  uriTemplate: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** 2025-06-18+. */
export interface ResourceLink extends Resource {
  type: 'resource_link';
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A JSON Schema whose root is an object, as `inputSchema` and `outputSchema` require. */
export interface ObjectJsonSchema {
  $schema?: string;
  type: 'object';
  properties?: { [key: string]: object };
  required?: string[];
  [key: string]: unknown;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool extends BaseMetadata {
  description?: string;
  inputSchema: ObjectJsonSchema;
  /** 2025-06-18+. */
  outputSchema?: ObjectJsonSchema;
  /** 2025-03-26+. */
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Meta;
}

export interface PaginatedRequestParams {
  cursor?: string;
  _meta?: Meta;
}

export interface PaginatedResult extends Result {
  nextCursor?: string;
}

export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}

export interface CallToolRequestParams {
  name: string;
  arguments?: { [key: string]: unknown };
  _meta?: Meta & { progressToken?: ProgressToken };
}

export interface CallToolResult extends Result {
  content: ContentBlock[];
  /** 2025-06-18+. */
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
}

export interface PromptArgument extends BaseMetadata {
  description?: string;
  required?: boolean;
}

export interface Prompt extends BaseMetadata {
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult extends Result {
  description?: string;
  messages: PromptMessage[];
}

export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}

export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}

export interface ReadResourceResult extends Result {
  contents: ResourceContents[];
}

export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}

export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

/** RFC 5424 severities, least severe first (2025-11-25 logging). */
export const LOG_LEVELS: readonly LoggingLevel[] = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

export interface ProgressNotificationParams {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  /** 2025-03-26+. */
  message?: string;
  _meta?: Meta;
}

export interface CancelledNotificationParams {
  /** Optional since 2025-11-25 (tasks); required for non-task requests. */
  requestId?: RequestId;
  reason?: string;
  _meta?: Meta;
}

/**
 * The request a `notifications/cancelled` names, if `value` is one (a transport that tracks
 * requests in flight reads it before the Peer does); undefined for anything else.
 */
export function cancelledRequestIdOf(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as { method?: unknown; id?: unknown; params?: unknown };
  if (message.method !== Method.Cancelled || 'id' in message) return undefined;
  const params = message.params as { requestId?: unknown } | undefined;
  return typeof params === 'object' && params !== null && isRequestId(params.requestId)
    ? params.requestId
    : undefined;
}

/** Method names, spelled once. */
export const Method = {
  Initialize: 'initialize',
  Initialized: 'notifications/initialized',
  Ping: 'ping',
  Cancelled: 'notifications/cancelled',
  Progress: 'notifications/progress',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  ToolsListChanged: 'notifications/tools/list_changed',
  ResourcesList: 'resources/list',
  ResourcesTemplatesList: 'resources/templates/list',
  ResourcesRead: 'resources/read',
  ResourcesSubscribe: 'resources/subscribe',
  ResourcesUnsubscribe: 'resources/unsubscribe',
  ResourcesUpdated: 'notifications/resources/updated',
  ResourcesListChanged: 'notifications/resources/list_changed',
  PromptsList: 'prompts/list',
  PromptsGet: 'prompts/get',
  PromptsListChanged: 'notifications/prompts/list_changed',
  CompletionComplete: 'completion/complete',
  LoggingSetLevel: 'logging/setLevel',
  LoggingMessage: 'notifications/message',
  SamplingCreateMessage: 'sampling/createMessage',
  ElicitationCreate: 'elicitation/create',
  ElicitationComplete: 'notifications/elicitation/complete',
  RootsList: 'roots/list',
  RootsListChanged: 'notifications/roots/list_changed',
} as const;

/** A root the client exposes (`roots/list`). */
export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

export interface ListRootsResult extends Result {
  roots: Root[];
}

/** 2025-11-25 sampling with tools: a tool call the model asks for. */
export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: { [key: string]: unknown };
  _meta?: Meta;
}

/** 2025-11-25 sampling with tools: the result of a tool call, sent back to the model. */
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  _meta?: Meta;
}

export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: 'user' | 'assistant';
  /** One block; 2025-11-25 also allows an array. */
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
}

export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: ModelPreferences;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: object;
  /** 2025-11-25, only when the client declared `sampling.tools`. */
  tools?: Tool[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
}

export interface CreateMessageResult extends Result {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | string;
}

/** The user's answer to `elicitation/create`. */
export interface ElicitResult extends Result {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [key: string]: string | number | boolean | string[] };
}

/** One URL-mode elicitation, as carried by `UrlElicitationRequiredError` (2025-11-25). */
export interface UrlElicitation {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
}

/** Who the caller is, when a transport authenticated it (HTTP bearer tokens, WebSocket). */
export interface AuthInfo {
  /** The raw access token. */
  token: string;
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** The subject (user) the token stands for. */
  subject?: string;
  scopes: string[];
  /** Expiry, in seconds since the epoch. */
  expiresAt?: number;
  /** RFC 8707 resource / audience the token is bound to. */
  resource?: string;
  /** Anything else the verifier wants handlers and guards to see. */
  extra?: { [key: string]: unknown };
}

/**
 * Who a caller is, as one string to compare (session owners, `requestState` bindings): the token's
 * subject, else its client, else the token itself, each under its own prefix (`sub:`, `client:`,
 * `token:`). Without the prefixes, a client-credentials token with `clientId: "alice"` would pass
 * for the user whose subject is `alice`. Undefined when the caller is not authenticated.
 */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  if (!auth) return undefined;
  // `!= null`: a verifier in JavaScript may report "no subject" as null; every such token
  // reading as `sub:null` would make them one principal.
  if (auth.subject != null) return `sub:${auth.subject}`;
  if (auth.clientId != null) return `client:${auth.clientId}`;
  return `token:${auth.token}`;
}
