import { Args, Ctx, Description, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import { McpError } from '@gantry/protocol';
import { IsBoolean, IsNumber, IsOptional, IsString, Min } from 'class-validator';

class Greet {
  @IsString() @Description('Who to greet') name!: string;
}

class SlowCompute {
  @IsOptional() @IsNumber() @Min(0) @Description('Seconds to sleep') seconds?: number;
  @IsOptional() @IsString() @Description('A label echoed in the result') label?: string;
}

class ConfirmDelete {
  @IsOptional() @IsString() @Description('The file to delete') filename?: string;
}

class Confirmation {
  @IsBoolean() @Description('Go ahead') confirm!: boolean;
}

class Named {
  @IsString() @Description('A name') name!: string;
  // The suite's answers may carry a confirmation beside the name.
  @IsOptional() @IsBoolean() @Description('Confirms the answer') confirm?: boolean;
}

/** Resolves after `ms`, or rejects once `signal` aborts (tasks/cancel). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * The fixture tools of the conformance repository's tasks scenarios
 * (`src/scenarios/server/tasks/*`, the io.modelcontextprotocol/tasks extension, SEP-2663).
 */
@Injectable()
export class ConformanceTaskTools {
  @Tool({ description: 'Sync only: returns Hello, {name}!' })
  greet(@Args() { name }: Greet) {
    return `Hello, ${name}!`;
  }

  @Tool({ name: 'slow_compute', description: 'Sleeps `seconds` seconds, then answers', task: 'optional' })
  async slowCompute(@Args() { seconds = 0, label }: SlowCompute, @Ctx() ctx: McpContext) {
    await sleep(seconds * 1000, ctx.signal);
    return `Computed ${label ?? 'result'} after ${seconds}s`;
  }

  @Tool({ name: 'failing_job', description: 'Always returns a tool execution error', task: 'required' })
  failingJob() {
    return { content: [{ type: 'text' as const, text: 'The job failed' }], isError: true };
  }

  @Tool({ name: 'protocol_error_job', description: 'Fails with a JSON-RPC error', task: 'optional' })
  protocolErrorJob(): never {
    throw new McpError(-32603, 'Internal error: the job broke');
  }

  @Tool({ name: 'confirm_delete', description: 'Asks before it deletes a file', task: 'optional' })
  async confirmDelete(@Args() { filename = 'file' }: ConfirmDelete, @Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(Confirmation, `Delete ${filename}?`);
    return answer.action === 'accept' && answer.content.confirm ? `Deleted ${filename}` : `Kept ${filename}`;
  }

  @Tool({ name: 'multi_input', description: 'Asks two questions at once', task: 'optional' })
  async multiInput(@Ctx() ctx: McpContext) {
    const [first, second] = await Promise.all([
      ctx.elicit(Named, 'First name?'),
      ctx.elicit(Named, 'Last name?'),
    ]);
    const name = (answer: typeof first) => (answer.action === 'accept' ? answer.content.name : '?');
    return `${name(first)} ${name(second)}`;
  }

  @Tool({
    name: 'test_tool_with_task',
    description: 'Asks for a name before it becomes a task, then greets as a task',
    task: 'required',
    deferTask: true,
  })
  async toolWithTask(@Ctx() ctx: McpContext) {
    // An input_required round of the call itself, before any task exists.
    const answer = await ctx.elicit(Named, 'Your name?');
    await ctx.runAsTask();
    return answer.action === 'accept' ? `Hello, ${answer.content.name}` : 'no name';
  }
}

@Module({ providers: [ConformanceTaskTools] })
export class ConformanceTasksModule {}
