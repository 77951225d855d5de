/** Called once the provider's module has been instantiated (all instances exist). */
export interface OnModuleInit {
  onModuleInit(): unknown;
}

/** Called once every module has been initialized, before the app serves. */
export interface OnApplicationBootstrap {
  onApplicationBootstrap(): unknown;
}

/** Called on `app.close()`, before connections' hooks finish. */
export interface OnModuleDestroy {
  onModuleDestroy(): unknown;
}

/** Called last on `app.close()`, with the signal that caused it when there is one. */
export interface OnApplicationShutdown {
  onApplicationShutdown(signal?: string): unknown;
}

export type LifecycleHook =
  | 'onModuleInit'
  | 'onApplicationBootstrap'
  | 'onModuleDestroy'
  | 'onApplicationShutdown';
