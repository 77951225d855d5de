import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { enhancersOf } from '../decorators/enhancer-metadata';
import type { ParamDescriptor } from '../decorators/params.decorator';
import type { Container } from '../di/container';
import type { ModuleNode } from '../di/module-graph';
import type { CanActivate, ExceptionFilter, Interceptor } from '../execution/enhancers';
import type { BoundFilter } from '../execution/pipeline';
import type { Logger } from '../logger';
import {
  CATCH_METADATA,
  FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PARAMS_METADATA,
} from '../metadata/keys';
import type { GlobalEnhancers, LocalEnhancers } from './compiled-handler';

/** Binds a filter instance to the error classes of its `@Catch()`. */
export function bindFilter(filter: ExceptionFilter): BoundFilter {
  const catches: Function[] | undefined = Reflect.getMetadata(CATCH_METADATA, (filter as object).constructor);
  return { filter, catches: catches && catches.length > 0 ? catches : null };
}

export function scanError(
  code: (typeof LocalErrorCode)[keyof typeof LocalErrorCode],
  message: string,
): GantryError {
  return new GantryError(code, message);
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** One provider instance being scanned for handlers, with what the builders need. */
export class ScanTarget {
  readonly proto: object;
  readonly cls: Function;
  readonly className: string;
  private readonly params: Map<string | symbol, ParamDescriptor[]>;

  constructor(
    readonly instance: object,
    readonly host: ModuleNode | undefined,
    private readonly container: Container | undefined,
    readonly globals: GlobalEnhancers,
    readonly logger: Logger,
  ) {
    this.proto = Object.getPrototypeOf(instance) as object;
    this.cls = instance.constructor;
    this.className = this.cls.name || '<anonymous class>';
    this.params = Reflect.getMetadata(PARAMS_METADATA, this.proto) ?? new Map();
  }

  /** The parameter decorators of a method. */
  paramsOf(propertyKey: string): readonly ParamDescriptor[] {
    return this.params.get(propertyKey) ?? [];
  }

  /** Methods that have Gantry parameter decorators. */
  decoratedMethods(): (string | symbol)[] {
    return [...this.params.keys()];
  }

  method(propertyKey: string): (...args: any[]) => unknown {
    return (this.instance as Record<string, unknown>)[propertyKey] as (...args: any[]) => unknown;
  }

  source(propertyKey: string): string {
    return `${this.className}.${propertyKey}`;
  }

  /** The class and method enhancers of a handler, resolved through the container. */
  enhancers(propertyKey: string): LocalEnhancers {
    const resolve = <T>(ref: unknown): T =>
      this.container ? this.container.resolveEnhancer(ref as T, this.host) : (ref as T);
    const guards = enhancersOf(GUARDS_METADATA, this.cls, propertyKey).map((g) => resolve<CanActivate>(g));
    const interceptors = enhancersOf(INTERCEPTORS_METADATA, this.cls, propertyKey).map((i) =>
      resolve<Interceptor>(i),
    );
    // Nearest first: the method's filters, then the class's.
    const onClass: unknown[] = Reflect.getMetadata(FILTERS_METADATA, this.cls) ?? [];
    const onMethod: unknown[] = Reflect.getMetadata(FILTERS_METADATA, this.cls.prototype, propertyKey) ?? [];
    const filters = [...onMethod, ...onClass].map((f) => bindFilter(resolve<ExceptionFilter>(f)));
    return { guards, interceptors, filters };
  }
}
