import type { Type } from '../di/tokens';
import { PARAMS_METADATA } from '../metadata/keys';
import { decoratorError, memberName } from './decorator-error';

/** What a handler parameter receives. */
export type ParamDescriptor =
  | { readonly index: number; readonly kind: 'args'; readonly dto?: Type }
  | { readonly index: number; readonly kind: 'ctx' };

type ParamKind = { readonly kind: 'args'; readonly dto?: Type } | { readonly kind: 'ctx' };

function record(decorator: string, param: ParamKind): ParameterDecorator {
  return (target, propertyKey, index) => {
    const where = memberName(target, propertyKey);
    if (propertyKey === undefined) {
      throw decoratorError(
        `${decorator} on a constructor parameter of ${where}: it belongs on a handler method's parameter`,
      );
    }
    const byMethod: Map<string | symbol, ParamDescriptor[]> =
      Reflect.getOwnMetadata(PARAMS_METADATA, target) ?? new Map();
    const params = byMethod.get(propertyKey) ?? [];
    const taken = params.find((p) => p.index === index);
    if (taken) {
      throw decoratorError(
        `${decorator} on ${where} parameter #${index}: that parameter already has a Gantry decorator`,
      );
    }
    if (params.some((p) => p.kind === param.kind)) {
      throw decoratorError(`${decorator} on ${where}: a method can have only one ${decorator} parameter`);
    }
    byMethod.set(propertyKey, [...params, { ...param, index } as ParamDescriptor]);
    Reflect.defineMetadata(PARAMS_METADATA, byMethod, target);
  };
}

/**
 * Injects the validated, transformed arguments. The DTO class comes from the parameter's type
 * (decorator metadata) or is named explicitly, which also works without metadata (esbuild, tsx).
 *
 * @example
 * ```ts
 * search(@Args() input: SearchNotes) {}        // type from metadata
 * search(@Args(SearchNotes) input: SearchNotes) {}  // explicit
 * ```
 */
export function Args(dto?: Type): ParameterDecorator {
  if (dto !== undefined && typeof dto !== 'function') {
    throw decoratorError('@Args() takes an optional DTO class, e.g. @Args(SearchNotes)');
  }
  return record('@Args()', dto ? { kind: 'args', dto } : { kind: 'args' });
}

/** Injects the request's `McpContext` (request id, signal, progress, logging, session). */
export function Ctx(): ParameterDecorator {
  return record('@Ctx()', { kind: 'ctx' });
}
