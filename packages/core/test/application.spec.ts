import {
  Args,
  Ctx,
  Injectable,
  type McpContext,
  Module,
  type OnApplicationShutdown,
  Tool,
} from '@gantry/core';
import { ConnectionClosedError } from '@gantry/protocol';
import { Test } from '@gantry/testing';
import { IsString } from 'class-validator';

class Word {
  @IsString() word!: string;
}

@Injectable()
class Dictionary {
  lookup(word: string) {
    return `${word}: a word`;
  }
}

const events: string[] = [];
/** Called when `hang` starts. */
let onHangStarted: (() => void) | undefined;

@Injectable()
class DictionaryTools implements OnApplicationShutdown {
  constructor(private readonly dictionary: Dictionary) {}

  @Tool({ description: 'Define a word' })
  define(@Args() { word }: Word) {
    return this.dictionary.lookup(word);
  }

  @Tool()
  async hang(@Ctx() ctx: McpContext) {
    events.push('hang started');
    onHangStarted?.();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    events.push(
      `hang aborted: ${ctx.signal.reason instanceof Error ? ctx.signal.reason.name : String(ctx.signal.reason)}`,
    );
    return 'never delivered';
  }

  onApplicationShutdown() {
    events.push('shutdown hook');
  }
}

@Module({ providers: [Dictionary, DictionaryTools] })
class DictionaryModule {}

describe('the testing module', () => {
  it('injects real providers and serves their tools to an in-memory client', async () => {
    const module = await Test.createTestingModule({ imports: [DictionaryModule] }).compile();
    const client = await module.createClient();
    expect(client.serverInfo).toEqual({ name: 'gantry-testing', version: '0.0.0' });
    expect(await client.callTool('define', { word: 'gantry' })).toEqual({
      content: [{ type: 'text', text: 'gantry: a word' }],
    });
    await module.close();
  });

  it('overrides a provider with useValue, useClass or useFactory', async () => {
    class Loud extends Dictionary {
      override lookup(word: string) {
        return word.toUpperCase();
      }
    }
    const byValue = await Test.createTestingModule({ imports: [DictionaryModule] })
      .overrideProvider(Dictionary)
      .useValue({ lookup: () => 'fake' })
      .compile();
    const byClass = await Test.createTestingModule({ imports: [DictionaryModule] })
      .overrideProvider(Dictionary)
      .useClass(Loud)
      .compile();
    // The override replaces the provider where it is declared, so its factory's dependencies resolve there too.
    const byFactory = await Test.createTestingModule({ imports: [DictionaryModule] })
      .overrideProvider(Dictionary)
      .useFactory({ factory: async () => ({ lookup: (w: string) => `${w}!` }) })
      .compile();
    const call = async (m: typeof byValue) => {
      const client = await m.createClient();
      const result = await client.callTool('define', { word: 'abc' });
      await m.close();
      return (result.content[0] as { text: string }).text;
    };
    expect(await call(byValue)).toBe('fake');
    expect(await call(byClass)).toBe('ABC');
    expect(await call(byFactory)).toBe('abc!');
  });
});

describe('app.close()', () => {
  it('with shutdownGraceMs 0, cancels in-flight calls at once, then runs the shutdown hooks', async () => {
    events.length = 0;
    const module = await Test.createTestingModule({ imports: [DictionaryModule] }).compile({
      shutdownGraceMs: 0,
    });
    const client = await module.createClient();
    const started = new Promise<void>((resolve) => {
      onHangStarted = resolve;
    });
    const call = client.callTool('hang').catch((error) => error);
    await started;
    await module.app.close();
    expect(await call).toBeInstanceOf(ConnectionClosedError);
    expect(events).toEqual(['hang started', 'hang aborted: ConnectionClosedError', 'shutdown hook']);
    await module.close();
  });
});
