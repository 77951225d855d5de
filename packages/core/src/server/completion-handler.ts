import { InvalidParamsError, Method, ResourceNotFoundError, type Result } from '@gantry/protocol';
import { accessDenied } from '../execution/pipeline';
import type { Completer } from '../registry/completion';
import { runCompleter } from '../registry/completion';
import type { Registry } from '../registry/registry';
import type { MethodHandler } from './method-table';

const EMPTY: Result = Object.freeze({ completion: Object.freeze({ values: [] }) }) as Result;

/** `completion/complete` for prompt arguments and resource-template variables (both eras). */
export function completionCompleteHandler(registry: Registry): [string, MethodHandler] {
  const complete: MethodHandler = async (params, inbound, session) => {
    const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = params?.argument as { name?: unknown; value?: unknown } | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw new InvalidParamsError(
        'Invalid params: completion/complete needs "argument" as { name, value } strings',
      );
    }
    const given = (params?.context as { arguments?: unknown } | undefined)?.arguments;
    const args =
      typeof given === 'object' && given !== null && !Array.isArray(given)
        ? (given as Record<string, string>)
        : {};
    let completer: Completer | undefined;
    if (ref?.type === 'ref/prompt') {
      if (typeof ref.name !== 'string')
        throw new InvalidParamsError('Invalid params: a ref/prompt needs "name"');
      const prompt = registry.prompts.get(ref.name);
      if (!prompt) throw new InvalidParamsError(`Unknown prompt: ${ref.name}`, { name: ref.name });
      if (prompt.handler.guarded && !(await prompt.handler.visible(inbound, session)))
        throw accessDenied('prompt', prompt.name);
      completer = prompt.completers.get(argument.name);
    } else if (ref?.type === 'ref/resource') {
      if (typeof ref.uri !== 'string')
        throw new InvalidParamsError('Invalid params: a ref/resource needs "uri"');
      const template = registry.templates.get(ref.uri);
      if (!template) {
        if (registry.resources.get(ref.uri)) return EMPTY;
        throw new ResourceNotFoundError(`Resource template not found: ${ref.uri}`, { uri: ref.uri });
      }
      if (template.handler.guarded && !(await template.handler.visible(inbound, session))) {
        throw accessDenied('resource', template.uriTemplate);
      }
      completer = template.completers.get(argument.name);
    } else {
      throw new InvalidParamsError(
        'Invalid params: completion/complete needs "ref" of type ref/prompt or ref/resource',
      );
    }
    if (!completer) return EMPTY;
    return {
      completion: await runCompleter(completer, { value: argument.value, arguments: args }, inbound, session),
    };
  };
  return [Method.CompletionComplete, complete];
}
