import type { EnhancerRef, ExceptionFilter } from '../execution/enhancers';
import { FILTERS_METADATA } from '../metadata/keys';
import { enhancerDecorator } from './enhancer-metadata';

/** Exception filters for every handler of a class, or for one handler; the nearest applies first. */
export function UseFilters(...filters: EnhancerRef<ExceptionFilter>[]): ClassDecorator & MethodDecorator {
  return enhancerDecorator('@UseFilters()', FILTERS_METADATA, 'catch', filters);
}
