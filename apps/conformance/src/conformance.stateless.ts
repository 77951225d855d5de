import {
  Args,
  Ctx,
  Header,
  Injectable,
  type McpContext,
  Module,
  Prompt,
  type Registration,
  Registry,
  Tool,
} from '@gantry/core';
import type { CreateMessageResult, Root } from '@gantry/protocol';
import { IsBoolean, IsString } from 'class-validator';

class UserName {
  @IsString() name!: string;
}

class Confirmation {
  @IsBoolean() ok!: boolean;
}

class FavouriteColor {
  @IsString() color!: string;
}

class PromptContext {
  @IsString() context!: string;
}

class Routed {
  @IsString() @Header('Region') region!: string;
}

/** The text of a sampling answer, whichever content form the client chose. */
function sampledText(result: CreateMessageResult): string {
  const content = Array.isArray(result.content) ? result.content[0] : result.content;
  return content?.type === 'text' ? content.text : JSON.stringify(content);
}

const uris = (roots: Root[]) => roots.map((root) => root.uri).join(', ') || 'none';

/** The tool that `test_trigger_tool_change` adds and removes: not a provider, so not scanned at bootstrap. */
class DynamicTool {
  @Tool({ name: 'test_dynamic_tool', description: 'Comes and goes with test_trigger_tool_change' })
  dynamic() {
    return 'Dynamic tool';
  }
}

/** The prompt that `test_trigger_prompt_change` adds and removes. */
class DynamicPrompt {
  @Prompt({ name: 'test_dynamic_prompt', description: 'Comes and goes with test_trigger_prompt_change' })
  dynamic() {
    return 'Dynamic prompt';
  }
}

/**
 * The diagnostic tools of the 2026-07-28 server scenarios of the conformance suite
 * (`src/scenarios/server/stateless.ts`, `http-standard-headers.ts`): a tool that needs an
 * undeclared capability, one that asks for input, one that logs, the hooks that change the
 * tool and prompt lists under an open `subscriptions/listen`, and a tool with an `x-mcp-header`.
 */
@Injectable()
export class ConformanceStatelessTools {
  /** What the trigger tools added, by name, until they remove it again. */
  private readonly added = new Map<string, Registration>();

  constructor(private readonly registry: Registry) {}

  @Tool({
    name: 'test_missing_capability',
    description: 'Samples the client; without the sampling capability the request fails with -32021',
  })
  async missingCapability(@Ctx() ctx: McpContext) {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
      maxTokens: 20,
    });
    return `Sampled: ${sampledText(answer)}`;
  }

  @Tool({
    name: 'test_streaming_elicitation',
    description: 'Asks for a name; in 2026-07-28 through input_required, never a request on the stream',
  })
  async streamingElicitation(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(UserName, 'What is your name?');
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `Elicitation ${answer.action}`;
  }

  @Tool({
    name: 'test_logging_tool',
    description: 'Logs three messages; a 2026-07-28 request gets them only with _meta logLevel',
  })
  async logging(@Ctx() ctx: McpContext) {
    await ctx.log('info', 'Logging tool started');
    await ctx.log('warning', 'Logging tool working');
    await ctx.log('info', 'Logging tool completed');
    return 'Logging tool completed';
  }

  @Tool({
    name: 'test_trigger_tool_change',
    description: 'Adds test_dynamic_tool, or removes it when present: the tool list changes',
  })
  triggerToolChange() {
    return this.toggle('test_dynamic_tool', () => new DynamicTool());
  }

  @Tool({
    name: 'test_trigger_prompt_change',
    description: 'Adds test_dynamic_prompt, or removes it when present: the prompt list changes',
  })
  triggerPromptChange() {
    return this.toggle('test_dynamic_prompt', () => new DynamicPrompt());
  }

  /** Adds what `make` makes under `name`, or removes it when it is there: a list changes either way. */
  private toggle(name: string, make: () => object): string {
    const registered = this.added.get(name);
    if (registered) {
      registered.remove();
      this.added.delete(name);
      return `Removed ${name}`;
    }
    this.added.set(name, this.registry.add(make()));
    return `Added ${name}`;
  }

  @Tool({
    name: 'test_custom_header',
    description: 'Its region argument is mirrored in the Mcp-Param-Region header (x-mcp-header)',
  })
  customHeader(@Args() { region }: Routed) {
    return `Region: ${region}`;
  }
}

/**
 * The tools and the prompt of the multi round-trip scenarios of the conformance suite
 * (`src/scenarios/server/input-required-result.ts`, SEP-2322). The suite answers named input
 * requests (`user_name`, `capital_question`, …), so each one is asked for under its `key`.
 */
@Injectable()
export class ConformanceInputRequiredTools {
  @Tool({ name: 'test_input_required_result_elicitation', description: 'Asks for a name, then greets' })
  async elicitation(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(UserName, 'What is your name?', { key: 'user_name' });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `Elicitation ${answer.action}`;
  }

  @Tool({
    name: 'test_input_required_result_sampling',
    description: 'Asks the model for the capital of France',
  })
  async sampling(@Ctx() ctx: McpContext) {
    const answer = await ctx.sample(
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      },
      { key: 'capital_question' },
    );
    return `The model said: ${sampledText(answer)}`;
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: 'Lists the client roots' })
  async listRoots(@Ctx() ctx: McpContext) {
    return `Roots: ${uris(await ctx.roots({ key: 'client_roots' }))}`;
  }

  @Tool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation; the retry must echo the signed requestState',
  })
  async requestState(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(Confirmation, 'Please confirm', { key: 'confirm' });
    // Reached only with a requestState that passed its integrity check (HMAC, Gantry's RoundTrips).
    const ok = answer.action === 'accept' && answer.content.ok;
    return `state-ok: confirmed=${ok}`;
  }

  @Tool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a greeting and the roots in one round',
  })
  async multipleInputs(@Ctx() ctx: McpContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(UserName, 'What is your name?', { key: 'user_name' }),
      ctx.sample(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        },
        { key: 'greeting' },
      ),
      ctx.roots({ key: 'client_roots' }),
    ]);
    const who = name.action === 'accept' ? name.content.name : 'stranger';
    return `${sampledText(greeting)} ${who} (roots: ${uris(roots)})`;
  }

  @Tool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks for a name, then in a second round for a colour',
  })
  async multiRound(@Ctx() ctx: McpContext) {
    const name = await ctx.elicit(UserName, 'Step 1: What is your name?', { key: 'step1' });
    const color = await ctx.elicit(FavouriteColor, 'Step 2: What is your favorite color?', { key: 'step2' });
    const who = name.action === 'accept' ? name.content.name : 'stranger';
    return `${who} likes ${color.action === 'accept' ? color.content.color : 'no colour'}`;
  }

  @Tool({
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for a confirmation; an altered requestState is refused with -32602',
  })
  async tamperedState(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(Confirmation, 'Please confirm', { key: 'confirm' });
    return `Confirmed: ${answer.action === 'accept' && answer.content.ok}`;
  }

  @Tool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only through the capabilities this request declares',
  })
  async capabilities(@Ctx() ctx: McpContext) {
    const { elicitation, sampling, roots } = ctx.clientCapabilities;
    const asked: Promise<string>[] = [];
    if (elicitation) {
      asked.push(
        ctx
          .elicit(UserName, 'What is your name?', { key: 'user_name' })
          .then((a) => (a.action === 'accept' ? `name ${a.content.name}` : `elicitation ${a.action}`)),
      );
    }
    if (sampling) {
      const params = {
        messages: [
          { role: 'user' as const, content: { type: 'text' as const, text: 'Generate a greeting' } },
        ],
        maxTokens: 50,
      };
      asked.push(ctx.sample(params, { key: 'greeting' }).then((r) => `greeting ${sampledText(r)}`));
    }
    if (roots) asked.push(ctx.roots({ key: 'client_roots' }).then((r) => `roots ${uris(r)}`));
    if (asked.length === 0) return 'The client declared no capability to ask through';
    return (await Promise.all(asked)).join('; ');
  }
}

/** The prompt of the `input-required-result-non-tool-request` scenario: input_required is not only for tools. */
@Injectable()
export class ConformanceInputRequiredPrompts {
  @Prompt({
    name: 'test_input_required_result_prompt',
    description: 'Asks what context to use, then uses it',
  })
  async withContext(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(PromptContext, 'What context should the prompt use?', {
      key: 'user_context',
    });
    const context = answer.action === 'accept' ? answer.content.context : 'no particular context';
    return `Answer with this context in mind: ${context}`;
  }
}

/** The fixtures of the 2026-07-28 (stateless era) server scenarios; imported by `ConformanceModule`. */
@Module({
  providers: [ConformanceStatelessTools, ConformanceInputRequiredTools, ConformanceInputRequiredPrompts],
})
export class ConformanceStatelessModule {}
