import { Args, Description, Injectable, Prompt } from '@gantry/core';
import { IsString } from 'class-validator';

/** The arguments of the `{{wireName}}` prompt: each property is one argument in `prompts/list`. */
export class {{pascal}}PromptArgs {
  @IsString()
  @Description('What the prompt is about')
  topic!: string;
}

@Injectable()
export class {{pascal}}Prompt {
  // A returned string becomes one user message.
  @Prompt({ description: 'Describe what the {{wireName}} prompt asks, for the user picking it' })
  {{camel}}(@Args() { topic }: {{pascal}}PromptArgs): string {
    return `{{wireName}}: ${topic}`;
  }
}
