import { Args, Description, Injectable, Tool } from '@gantry/core';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { GreetingService } from './greeting.service';

/**
 * The arguments of `greet`. This one class is the JSON Schema clients see in `tools/list`, the
 * validation every call goes through, and the object the method receives.
 */
export class GreetArgs {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Description('Who to greet')
  name!: string;
}

@Injectable()
export class GreeterTool {
  constructor(private readonly greetings: GreetingService) {}

  // The tool's name is the method's, in snake_case: `greet`. A returned string becomes text content.
  @Tool({ description: 'Greet someone by name', annotations: { readOnlyHint: true } })
  greet(@Args() { name }: GreetArgs): string {
    return this.greetings.greet(name);
  }
}
