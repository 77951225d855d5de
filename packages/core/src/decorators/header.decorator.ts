import { HEADER_METADATA } from '../schema/schema-keys';
import { headerNameProblem } from '../stateless/mcp-header';
import { decoratorError, memberName } from './decorator-error';

/**
 * Mirrors a tool argument into the HTTP header `Mcp-Param-{name}` (2026-07-28 `x-mcp-header`),
 * so gateways and load balancers can route on it without parsing the body. Only for string,
 * integer and boolean properties of the arguments DTO, reached through plain properties.
 * Never use it for secrets or personal data: headers end up in logs.
 *
 * @example
 * ```ts
 * class Query {
 *   @IsString() @Header('Region') region!: string;
 *   @IsString() sql!: string;
 * }
 * ```
 */
export function Header(name: string): PropertyDecorator {
  const problem = headerNameProblem(name);
  if (problem) throw decoratorError(`@Header(): ${problem}`);
  return (target: object, propertyKey: string | symbol | undefined) => {
    const where = memberName(target, propertyKey);
    if (propertyKey === undefined) {
      throw decoratorError(`@Header() on ${where}: it mirrors a property; put it on one`);
    }
    if (Reflect.hasOwnMetadata(HEADER_METADATA, target, propertyKey)) {
      throw decoratorError(`@Header() on ${where}: the property already has a header; keep one`);
    }
    Reflect.defineMetadata(HEADER_METADATA, name, target, propertyKey);
  };
}
