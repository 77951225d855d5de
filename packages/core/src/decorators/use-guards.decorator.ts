import type { CanActivate, EnhancerRef } from '../execution/enhancers';
import { GUARDS_METADATA } from '../metadata/keys';
import { enhancerDecorator } from './enhancer-metadata';

/**
 * Guards for every handler of a class, or for one handler. Classes are built by the container,
 * so a guard can inject services.
 *
 * @example
 * ```ts
 * @UseGuards(AdminOnly)
 * @Tool() deleteEverything() {}
 * ```
 */
export function UseGuards(...guards: EnhancerRef<CanActivate>[]): ClassDecorator & MethodDecorator {
  return enhancerDecorator('@UseGuards()', GUARDS_METADATA, 'canActivate', guards);
}
