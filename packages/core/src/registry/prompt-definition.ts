import type { GetPromptResult, Prompt } from '@gantry/protocol';
import type { CompiledHandler } from './compiled-handler';
import type { Completer } from './completion';

/** A prompt as the registry holds it. */
export interface PromptDefinition {
  readonly name: string;
  readonly descriptor: Readonly<Prompt>;
  readonly source: string;
  readonly handler: CompiledHandler<GetPromptResult>;
  /** Completers per argument. */
  readonly completers: ReadonlyMap<string, Completer>;
}
