// SEP-1034 defaults of form-mode elicitation (MCP 2025-11-25, Client › Elicitation
// §"Requested Schema": every primitive property may carry a `default`): when the user accepts,
// the fields the handler left out are answered with the requested schema's defaults.
import { isObject, Method, type Result } from '@gantry/protocol';
import type { ClientRequestHandler } from './client-options';

/**
 * `result` with the `default` of each top-level `requestedSchema` property that an accepted
 * form-mode answer's `content` left out (absent or `undefined`). What the handler gave is never
 * replaced; declines, cancels, URL-mode answers and malformed shapes pass through unchanged.
 */
export function withSchemaDefaults(params: { [key: string]: unknown }, result: Result): Result {
  if (!isObject(result) || result.action !== 'accept') return result;
  if (params.mode !== undefined && params.mode !== 'form') return result;
  const schema = params.requestedSchema;
  if (!isObject(schema) || !isObject(schema.properties)) return result;
  const content = result.content ?? {};
  if (!isObject(content) || Array.isArray(content)) return result;
  let filled: { [key: string]: unknown } | undefined;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property) || property.default === undefined) continue;
    if (Object.hasOwn(content, name) && content[name] !== undefined) continue;
    filled ??= { ...content };
    // defineProperty: a property named "__proto__" must stay a field, not replace the prototype.
    Object.defineProperty(filled, name, {
      value: property.default,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return filled === undefined ? result : { ...result, content: filled };
}

/** `handler` as the Client runs it: `elicitation/create` answers get their schema defaults. */
export function withElicitationDefaults(method: string, handler: ClientRequestHandler): ClientRequestHandler {
  if (method !== Method.ElicitationCreate) return handler;
  return async (params, request) => withSchemaDefaults(params, await handler(params, request));
}
