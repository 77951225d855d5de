export { type ApiKeyEntry, type ApiKeysOptions, apiKeys } from '@gantry/core';
export * from './auth';
export { type EventStore, InMemoryEventStore, type InMemoryEventStoreOptions } from './event-store';
export { type HttpListener, type HttpListenerOptions, http } from './http-listener';
export { type ProtectedResourceMetadataOptions, protectedResourceMetadata } from './metadata-plugin';
export type { MetricsExporter, MetricsOptions } from './metrics-endpoint';
export type { GantryMcpOptions } from './options';
export { gantryMcp } from './plugin';
export type { ResponseMode } from './request-stream';
