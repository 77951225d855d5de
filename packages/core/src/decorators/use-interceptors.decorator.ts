import type { EnhancerRef, Interceptor } from '../execution/enhancers';
import { INTERCEPTORS_METADATA } from '../metadata/keys';
import { enhancerDecorator } from './enhancer-metadata';

/** Interceptors for every handler of a class, or for one handler; the first listed is outermost. */
export function UseInterceptors(
  ...interceptors: EnhancerRef<Interceptor>[]
): ClassDecorator & MethodDecorator {
  return enhancerDecorator('@UseInterceptors()', INTERCEPTORS_METADATA, 'intercept', interceptors);
}
