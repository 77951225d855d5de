import { Args, Injectable, Prompt } from '@gantry/core';
import { IsString } from 'class-validator';
import { PNG_BASE64 } from './media';

class TwoArgs {
  @IsString() arg1!: string;
  @IsString() arg2!: string;
}

class ResourceArgs {
  @IsString() resourceUri!: string;
}

/** The prompts the conformance suite gets. */
@Injectable()
export class ConformancePrompts {
  @Prompt({ name: 'test_simple_prompt', description: 'A prompt without arguments' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments',
    complete: { arg1: ['test1', 'test2', 'other'] },
  })
  withArguments(@Args() { arg1, arg2 }: TwoArgs) {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @Prompt({ name: 'test_prompt_with_embedded_resource', description: 'A prompt with an embedded resource' })
  withResource(@Args() { resourceUri }: ResourceArgs) {
    return [
      {
        type: 'resource',
        resource: {
          uri: resourceUri,
          mimeType: 'text/plain',
          text: 'Embedded resource content for testing.',
        },
      },
      'Please process the embedded resource above.',
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  withImage() {
    return [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }, 'Please analyze the image above.'];
  }
}
