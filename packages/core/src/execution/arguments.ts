import type { McpContext } from '../context/mcp-context';
import type { ParamDescriptor } from '../decorators/params.decorator';

/** What a resource read hands to its method's parameters. */
export interface ResourceCall {
  readonly uri: string;
  readonly variables: Readonly<Record<string, string | string[]>>;
}

/** Builds a handler's argument list from the decorated parameters. */
export type ArgumentBuilder = (value: unknown, mcp: McpContext | undefined) => unknown[];

/**
 * Compiles the parameter layout once. `@Args()` receives the validated value; `@Ctx()` the
 * context; `@Param(name)` and `@Uri()` read a `ResourceCall`.
 */
export function compileArguments(params: readonly ParamDescriptor[]): ArgumentBuilder {
  if (params.length === 0) return () => [];
  if (params.length === 1 && params[0].kind === 'args' && params[0].index === 0) return (value) => [value];
  const arity = Math.max(...params.map((p) => p.index)) + 1;
  const slots = new Array<ParamDescriptor | undefined>(arity);
  for (const param of params) slots[param.index] = param;
  return (value, mcp) => {
    const list = new Array<unknown>(arity);
    for (let i = 0; i < arity; i++) {
      const param = slots[i];
      if (!param) continue;
      switch (param.kind) {
        case 'args':
          list[i] = value;
          break;
        case 'ctx':
          list[i] = mcp;
          break;
        case 'param':
          list[i] = (value as ResourceCall).variables[param.name];
          break;
        case 'uri':
          list[i] = (value as ResourceCall).uri;
          break;
      }
    }
    return list;
  };
}
