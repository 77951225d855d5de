/**
 * Every metadata key Gantry's decorators write, as symbols in one place.
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
/** Resource descriptors (`@Resource`), on the prototype. */
export const RESOURCES_METADATA = Symbol('gantry:resources');
/** `@ResourceList` descriptors: methods that enumerate a template's resources. */
export const RESOURCE_LISTS_METADATA = Symbol('gantry:resource-lists');
/** Prompt descriptors (`@Prompt`), on the prototype. */
export const PROMPTS_METADATA = Symbol('gantry:prompts');
/** Completion descriptors (`@Complete`), on the prototype. */
export const COMPLETIONS_METADATA = Symbol('gantry:completions');
/** `@UseGuards` / `@UseInterceptors` / `@UseFilters`: on the class, or per method on the prototype. */
export const GUARDS_METADATA = Symbol('gantry:guards');
export const INTERCEPTORS_METADATA = Symbol('gantry:interceptors');
export const FILTERS_METADATA = Symbol('gantry:filters');
/** The error classes an exception filter handles (`@Catch`). */
export const CATCH_METADATA = Symbol('gantry:catch');
