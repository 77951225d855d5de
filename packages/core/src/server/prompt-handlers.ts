import { InvalidParamsError, type ListPromptsResult, Method } from '@gantry/protocol';
import type { Registry } from '../registry/registry';
import type { MethodHandler } from './method-table';
import { pageResult } from './page-result';

/** `prompts/list` and `prompts/get`. */
export function promptHandlers(registry: Registry, pageSize: number): [string, MethodHandler][] {
  const prompts = registry.prompts;
  const list: MethodHandler = (params, inbound, session) =>
    pageResult<ListPromptsResult>('prompts', prompts.page(inbound, session, params?.cursor, pageSize));

  const get: MethodHandler = (params, inbound, session) => {
    const name = params?.name;
    if (typeof name !== 'string')
      throw new InvalidParamsError('Invalid params: prompts/get needs "name" as a string');
    const args = params?.arguments;
    if (args !== undefined) {
      const valid =
        typeof args === 'object' &&
        args !== null &&
        !Array.isArray(args) &&
        Object.values(args).every((v) => typeof v === 'string');
      // 2025-11-25 prompts: argument values are strings.
      if (!valid)
        throw new InvalidParamsError(
          `Invalid params: the arguments of prompt '${name}' must be an object of strings`,
        );
    }
    const prompt = prompts.get(name);
    if (!prompt) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
    return prompt.handler.run(args, inbound, session);
  };

  return [
    [Method.PromptsList, list],
    [Method.PromptsGet, get],
  ];
}
