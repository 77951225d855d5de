import { Module } from '@gantry/core';
import { ConformancePrompts } from './conformance.prompts';
import { ConformanceResources } from './conformance.resources';
import { ConformanceStatelessModule } from './conformance.stateless';
import { ConformanceTools } from './conformance.tools';

@Module({
  imports: [ConformanceStatelessModule],
  providers: [ConformanceTools, ConformanceResources, ConformancePrompts],
})
export class ConformanceModule {}
