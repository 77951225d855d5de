import {
  Args,
  Ctx,
  Description,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
  Tool,
} from '@gantry/core';
import { McpError } from '@gantry/protocol';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export class EchoArgs {
  @IsString()
  @Description('Text to send back')
  text!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  times = 1;
}

@Injectable()
export class EchoTools {
  @Tool({ description: 'Echoes its input' })
  echo(@Args() args: EchoArgs): string {
    return args.text.repeat(args.times);
  }

  @Tool({ description: 'Fails with a plain Error' })
  fail(): string {
    throw new Error('the disk is full');
  }

  @Tool({ description: 'Fails with a JSON-RPC error' })
  forbidden(): string {
    throw new McpError(-32001, 'Forbidden here', { reason: 'test' });
  }

  @Tool({ description: 'Waits until cancelled' })
  async wait(@Ctx() ctx: McpContext): Promise<string> {
    const aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    // Tells a caller that asked for progress that the handler runs and listens for the abort.
    if (ctx.progressToken !== undefined) await ctx.progress(0);
    await aborted;
    return 'cancelled';
  }
}

@Module({ providers: [EchoTools] })
export class EchoModule {}

export function createEchoApp(options: { pageSize?: number } = {}) {
  return GantryFactory.create(EchoModule, { name: 'echo', version: '1.2.3', logger: false, ...options });
}
