import { Module } from '@gantry/core';
import { GreeterPrompt } from './greeter.prompt';
import { GreeterResource } from './greeter.resource';
import { GreeterTool } from './greeter.tool';
import { GreetingService } from './greeting.service';

// Every class with @Tool, @Resource or @Prompt methods is listed here, and so is what they inject.
// `npx gantry generate tool <name>` adds new ones to this list.
@Module({
  providers: [GreetingService, GreeterTool, GreeterResource, GreeterPrompt],
})
export class AppModule {}
