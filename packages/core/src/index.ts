import 'reflect-metadata';

export { GantryApplication } from './application/gantry-application';
export { GantryFactory } from './application/gantry-factory';
export { McpContext, type SessionInfo } from './context/mcp-context';
export { Description } from './decorators/description.decorator';
export { Inject } from './decorators/inject.decorator';
export { Injectable } from './decorators/injectable.decorator';
export { Module } from './decorators/module.decorator';
export { Args, Ctx, type ParamDescriptor } from './decorators/params.decorator';
export { Tool, type ToolDescriptor, type ToolOptions } from './decorators/tool.decorator';
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
export { toCallToolResult } from './execution/tool-result';
export { type Logger, StderrLogger, silentLogger } from './logger';
export { Registry } from './registry/registry';
export type { ToolDefinition } from './registry/tool-definition';
export { ToolRegistry } from './registry/tool-registry';
export {
  type ArgsValidator,
  jsonSchemaFromClass,
  type ValidationIssue,
  type ValidationOutcome,
} from './schema';
export { GantryServer } from './server/gantry-server';
export type { GantryServerOptions } from './server/server-options';
export { ServerSession } from './server/server-session';
export type { ListenHost, McpListener } from './transports/listener';
export { type StdioOptions, StdioServerTransport, stdio } from './transports/stdio';
