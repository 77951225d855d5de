import { INJECTABLE_METADATA } from '../metadata/keys';

/**
 * Marks a class as a provider. Besides documenting intent, a class decorator is what makes
 * TypeScript emit the constructor's parameter types (`design:paramtypes`) for injection.
 */
export function Injectable(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(INJECTABLE_METADATA, true, target);
  };
}
