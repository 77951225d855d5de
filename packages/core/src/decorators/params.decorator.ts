import type { Type } from '../di/tokens';
import { PARAMS_METADATA } from '../metadata/keys';
import { decoratorError, memberName } from './decorator-error';

/** What a handler parameter receives. */
export type ParamDescriptor =
  | { readonly index: number; readonly kind: 'args'; readonly dto?: Type }
  | { readonly index: number; readonly kind: 'ctx' }
  | { readonly index: number; readonly kind: 'param'; readonly name: string }
  | { readonly index: number; readonly kind: 'uri' };

type ParamKind =
  | { readonly kind: 'args'; readonly dto?: Type }
  | { readonly kind: 'ctx' }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'uri' };

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
    if (param.kind !== 'param' && params.some((p) => p.kind === param.kind)) {
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

/**
 * Injects one variable of the resource's URI template (percent-decoded).
 *
 * @example
 * ```ts
 * @Resource({ uri: 'notes://{id}' }) note(@Param('id') id: string) {}
 * ```
 */
export function Param(name: string): ParameterDecorator {
  if (typeof name !== 'string' || name === '') {
    throw decoratorError("@Param() needs the template variable's name, e.g. @Param('id')");
  }
  return record(`@Param('${name}')`, { kind: 'param', name });
}

/** Injects the full URI being read (resources). */
export function Uri(): ParameterDecorator {
  return record('@Uri()', { kind: 'uri' });
}
