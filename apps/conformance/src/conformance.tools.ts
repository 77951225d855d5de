import { Args, Ctx, Injectable, type McpContext, Tool } from '@gantry/core';
import { IsBoolean, IsEmail, IsIn, IsInt, IsNumber, IsString } from 'class-validator';
import { PNG_BASE64, WAV_BASE64 } from './media';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class SamplingArgs {
  @IsString() prompt!: string;
}

class ElicitationArgs {
  @IsString() message!: string;
}

class UserInfo {
  @IsString() username!: string;
  @IsEmail() email!: string;
}

/** SEP-1034: every primitive with a default. */
class Defaults {
  @IsString() name = 'John Doe';
  @IsInt() age = 30;
  @IsNumber() score = 95.5;
  @IsIn(['active', 'inactive', 'pending']) status = 'active';
  @IsBoolean() verified = true;
}

/** SEP-1330: the five enum forms, hand-written because the legacy `enumNames` form is deprecated. */
const ENUM_FORMS = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
};

/** JSON Schema 2020-12 features, listed verbatim. */
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object' as const,
  $defs: {
    address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
};

/** The tools the conformance suite calls (the official conformance suite, github.com/modelcontextprotocol/conformance, its server scenarios). */
@Injectable()
export class ConformanceTools {
  @Tool({ name: 'test_simple_text', description: 'Returns simple text content' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @Tool({ name: 'test_image_content', description: 'Returns an image' })
  image() {
    return { type: 'image', data: PNG_BASE64, mimeType: 'image/png' };
  }

  @Tool({ name: 'test_audio_content', description: 'Returns audio' })
  audio() {
    return { type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' };
  }

  @Tool({ name: 'test_embedded_resource', description: 'Returns an embedded resource' })
  embedded() {
    return {
      type: 'resource',
      resource: {
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      },
    };
  }

  @Tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' })
  mixed() {
    return [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ];
  }

  @Tool({ name: 'test_tool_with_logging', description: 'Logs three messages while it runs' })
  async logging(@Ctx() ctx: McpContext) {
    await ctx.log('info', 'Tool execution started');
    await pause(50);
    await ctx.log('info', 'Tool processing data');
    await pause(50);
    await ctx.log('info', 'Tool execution completed');
    return 'Logging test completed';
  }

  @Tool({ name: 'test_error_handling', description: 'Always fails with a tool error' })
  error(): string {
    throw new Error('This tool intentionally returns an error for testing');
  }

  @Tool({ name: 'test_tool_with_progress', description: 'Reports progress three times' })
  async progress(@Ctx() ctx: McpContext) {
    for (const value of [0, 50, 100]) {
      await ctx.progress(value, 100, `step ${value}`);
      if (value < 100) await pause(50);
    }
    return 'Progress test completed';
  }

  @Tool({ name: 'test_sampling', description: 'Asks the client to sample its model' })
  async sampling(@Args() { prompt }: SamplingArgs, @Ctx() ctx: McpContext) {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return `LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  @Tool({ name: 'test_elicitation', description: 'Asks the user for a username and an email' })
  async elicitation(@Args() { message }: ElicitationArgs, @Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(UserInfo, message);
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;
  }

  @Tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicitation whose fields have defaults (SEP-1034)',
  })
  async elicitationDefaults(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(Defaults, 'Please review your profile');
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;
  }

  @Tool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicitation with every enum form (SEP-1330)',
  })
  async elicitationEnums(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit<Record<string, unknown>>(ENUM_FORMS, 'Please choose');
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;
  }

  @Tool({
    name: 'test_reconnection',
    description: 'Drops its SSE stream, then answers; the client resumes (SSE polling, SEP-1699)',
  })
  async reconnection(@Ctx() ctx: McpContext) {
    ctx.closeSseStream();
    await pause(200);
    return 'Reconnection test completed';
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    input: SCHEMA_2020_12,
  })
  schema2020(@Args() args: { name?: string }) {
    return `Hello ${args.name ?? 'world'}`;
  }
}
