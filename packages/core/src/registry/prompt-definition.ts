import type { GetPromptResult, Prompt } from '@gantry/protocol';
import type { CacheHint } from '../stateless/cache-hint';
import type { CompiledHandler } from './compiled-handler';
import type { Completer } from './completion';

/** A prompt as the registry holds it. */
export interface PromptDefinition {
  readonly name: string;
  readonly descriptor: Readonly<Prompt>;
  readonly source: string;
  /** Stateless-era caching hints from the decorator. */
  readonly cache?: CacheHint;
  readonly handler: CompiledHandler<GetPromptResult>;
  /** Completers per argument. */
  readonly completers: ReadonlyMap<string, Completer>;
}
