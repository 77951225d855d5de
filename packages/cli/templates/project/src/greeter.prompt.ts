import { Args, Description, Injectable, Prompt } from '@gantry/core';
import { IsIn, IsOptional, IsString } from 'class-validator';

/** The arguments of the `introduce` prompt: each property is one argument in `prompts/list`. */
export class IntroduceArgs {
  @IsString()
  @Description('Who to introduce')
  name!: string;

  @IsOptional()
  @IsIn(['casual', 'formal'])
  @Description('casual or formal')
  tone = 'casual';
}

@Injectable()
export class GreeterPrompt {
  // A returned string becomes one user message.
  @Prompt({ title: 'Introduce someone', description: 'Ask the model to introduce someone' })
  introduce(@Args() { name, tone }: IntroduceArgs): string {
    return `Introduce ${name} in a ${tone} tone, in two sentences.`;
  }
}
