import { Module } from '@gantry/core';
import { ConformancePrompts } from './conformance.prompts';
import { ConformanceResources } from './conformance.resources';
import { ConformanceTools } from './conformance.tools';

@Module({ providers: [ConformanceTools, ConformanceResources, ConformancePrompts] })
export class ConformanceModule {}
