/**
 * Every metadata key Gantry's decorators write, as symbols in one place (STYLE §3).
 * Read them through the typed getters in `metadata/readers.ts`.
 */
export const MODULE_METADATA = Symbol('gantry:module');
export const INJECTABLE_METADATA = Symbol('gantry:injectable');
/** Constructor parameter index → explicit injection token (`@Inject`). */
export const INJECT_METADATA = Symbol('gantry:inject');
/** Tool descriptors recorded on a class prototype, one per `@Tool` method. */
export const TOOLS_METADATA = Symbol('gantry:tools');
/** Parameter descriptors (`@Args`, `@Ctx`, …) per method, on the prototype. */
export const PARAMS_METADATA = Symbol('gantry:params');

/** The key TypeScript's `emitDecoratorMetadata` (and swc's `decoratorMetadata`) writes. */
export const DESIGN_PARAMTYPES = 'design:paramtypes';
