import { type CallToolResult, type InboundRequest, McpError } from '@gantry/protocol';
import { McpContext, type SessionInfo } from '../context/mcp-context';
import type { ParamDescriptor } from '../decorators/params.decorator';
import type { Logger } from '../logger';
import type { ToolExecutor } from '../registry/tool-definition';
import { type ArgsValidator, formatIssues, type ValidationOutcome } from '../schema';
import { toCallToolResult, toolErrorResult } from './tool-result';

export interface ExecutorSpec {
  readonly toolName: string;
  readonly source: string;
  readonly instance: object;
  readonly method: (...args: any[]) => unknown;
  readonly params: readonly ParamDescriptor[];
  readonly validator: ArgsValidator;
  readonly logger: Logger;
}

type ArgumentBuilder = (value: unknown, inbound: InboundRequest, session: SessionInfo) => unknown[];

/** Builds the method's argument list once per call, from the parameter descriptors. */
function compileArguments(params: readonly ParamDescriptor[]): ArgumentBuilder {
  if (params.length === 0) return () => [];
  if (params.length === 1 && params[0].kind === 'args' && params[0].index === 0) return (value) => [value];
  const arity = Math.max(...params.map((p) => p.index)) + 1;
  const kinds = new Array<ParamDescriptor['kind'] | undefined>(arity);
  for (const param of params) kinds[param.index] = param.kind;
  return (value, inbound, session) => {
    const list = new Array<unknown>(arity);
    for (let i = 0; i < arity; i++) {
      const kind = kinds[i];
      if (kind === 'args') list[i] = value;
      else if (kind === 'ctx') list[i] = new McpContext(inbound, session);
    }
    return list;
  };
}

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<T>).then === 'function';
}

/**
 * Compiles a tool's call path. Work that does not depend on the call (parameter layout,
 * binding, messages) happens here, once; a synchronous tool runs without a promise.
 */
export function compileToolExecutor(spec: ExecutorSpec): ToolExecutor {
  const { toolName, source, instance, method, validator, logger } = spec;
  const buildArguments = compileArguments(spec.params);

  const fail = (error: unknown): CallToolResult => {
    // McpError is the author's way to answer with a JSON-RPC error: let it reach the Peer.
    if (error instanceof McpError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    logger.error(`Tool '${toolName}' (${source}) failed:`, error);
    return toolErrorResult(message);
  };

  const run = (outcome: ValidationOutcome, inbound: InboundRequest, session: SessionInfo) => {
    if (!outcome.ok) {
      // 2025-11-25 (SEP-1303): invalid arguments are a tool execution error the model can correct.
      return toolErrorResult(`Invalid arguments for tool '${toolName}': ${formatIssues(outcome.issues)}`);
    }
    let returned: unknown;
    try {
      returned = method.apply(instance, buildArguments(outcome.value, inbound, session));
    } catch (error) {
      return fail(error);
    }
    if (isThenable(returned)) return Promise.resolve(returned).then(toCallToolResult, fail);
    return toCallToolResult(returned);
  };

  return (args, inbound, session) => {
    const outcome = validator.validate(args);
    if (isThenable<ValidationOutcome>(outcome))
      return Promise.resolve(outcome).then((o) => run(o, inbound, session));
    return run(outcome, inbound, session);
  };
}
