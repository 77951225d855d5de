import { Args, Description, Injectable, Tool } from '@gantry/core';
import { IsString } from 'class-validator';

/** The arguments of `{{wireName}}`: its JSON Schema, its validation and what the method receives. */
export class {{pascal}}Args {
  @IsString()
  @Description('What to work on')
  input!: string;
}

@Injectable()
export class {{pascal}}Tool {
  @Tool({ description: 'Describe what {{wireName}} does, for the model' })
  {{camel}}(@Args() { input }: {{pascal}}Args): string {
    return `{{wireName}}: ${input}`;
  }
}
