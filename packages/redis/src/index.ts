export { type ClusterEventStoreContext, RedisClusterEventStore } from './cluster-event-store';
export type { RedisClusterOptions } from './cluster-options';
export { type NginxConfigOptions, nginxConfig } from './nginx-config';
export type { RedisConnection, RedisEventStoreOptions } from './options';
export { RedisCluster, redisCluster } from './redis-cluster';
export { RedisEventStore, redisEventStore } from './redis-event-store';
export { RedisSessionStore } from './redis-session-store';
export { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store';
export type { RedisStreamFollower } from './stream-follower';
