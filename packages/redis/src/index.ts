export { type NginxConfigOptions, nginxConfig } from './nginx-config';
export type { RedisConnection, RedisEventStoreOptions } from './options';
export { RedisEventStore, redisEventStore } from './redis-event-store';
