// Timeouts, rate limits and concurrency through a connected client, in both protocol eras.
import { Client } from '@gantry/client';
import {
  Args,
  Concurrency,
  Ctx,
  Injectable,
  LimitErrorCode,
  type McpContext,
  Prompt,
  RateLimit,
  RETRY_AFTER_META,
  Timeout,
  Tool,
} from '@gantry/core';
import { type AuthInfo, InMemoryTransport, McpError } from '@gantry/protocol';
import { Test, type TestingModule } from '@gantry/testing';

type Era = 'session' | 'stateless';
const ERAS: Era[] = ['session', 'stateless'];

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

async function clientAs(module: TestingModule, era: Era, auth?: AuthInfo): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await module.app.connect(serverSide, { auth });
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide, { era });
  return client;
}

describe.each(ERAS)('@Timeout (%s era)', (era) => {
  it('aborts ctx.signal and answers a tool error; the late result is dropped', async () => {
    const aborted = deferred<unknown>();
    const release = deferred();
    @Injectable()
    class Slow {
      @Timeout(20)
      @Tool()
      async slow(@Ctx() ctx: McpContext) {
        ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
        await release.promise;
        return 'late';
      }
    }
    const module = await Test.createTestingModule({ providers: [Slow] }).compile();
    const client = await module.createClient(undefined, { era });
    const result = await client.callTool('slow');
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("Tool 'slow' timed out after 20 ms");
    const reason = await aborted.promise;
    expect((reason as DOMException).name).toBe('TimeoutError');
    release.resolve();
    await module.close();
  });

  it('applies the global default, and a class-level @Timeout over it', async () => {
    const release = deferred();
    @Injectable()
    class Defaults {
      @Tool()
      async hangs() {
        await release.promise;
      }
    }
    @Timeout(15)
    @Injectable()
    class Classy {
      @Tool()
      async hangsToo() {
        await release.promise;
      }
      @Tool()
      quick() {
        return 'ok';
      }
    }
    const module = await Test.createTestingModule({ providers: [Defaults, Classy] }).compile({
      limits: { timeoutMs: 10 },
    });
    const client = await module.createClient(undefined, { era });
    expect(text(await client.callTool('hangs'))).toBe("Tool 'hangs' timed out after 10 ms");
    expect(text(await client.callTool('hangs_too'))).toBe("Tool 'hangs_too' timed out after 15 ms");
    expect(await client.callTool('quick')).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    release.resolve();
    await module.close();
  });
});

describe.each(ERAS)('@RateLimit (%s era)', (era) => {
  it('answers a tool error with retryAfterMs once the budget is spent', async () => {
    @Injectable()
    class Limited {
      @RateLimit({ points: 2, duration: 60 })
      @Tool()
      ping() {
        return 'pong';
      }
    }
    const module = await Test.createTestingModule({ providers: [Limited] }).compile();
    const client = await module.createClient(undefined, { era });
    expect(text(await client.callTool('ping'))).toBe('pong');
    expect(text(await client.callTool('ping'))).toBe('pong');
    const refused = await client.callTool('ping');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^Rate limit 'tool:ping' exceeded \(2 per 60 s\): retry in [\d.]+ s$/);
    const retryAfterMs = (refused._meta as Record<string, number>)[RETRY_AFTER_META];
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    await module.close();
  });

  it('keeps one bucket per principal by default, namespaced as principals are', async () => {
    @Injectable()
    class Limited {
      @RateLimit({ points: 1, duration: 60 })
      @Tool()
      ping() {
        return 'pong';
      }
    }
    const module = await Test.createTestingModule({ providers: [Limited] }).compile();
    const alice = await clientAs(module, era, { token: 't1', subject: 'alice', scopes: [] });
    const alice2 = await clientAs(module, era, { token: 't2', subject: 'alice', scopes: [] });
    const bob = await clientAs(module, era, { token: 't3', subject: 'bob', scopes: [] });
    expect((await alice.callTool('ping')).isError).toBeUndefined();
    expect((await alice2.callTool('ping')).isError).toBe(true);
    expect((await bob.callTool('ping')).isError).toBeUndefined();
    await Promise.all([alice.close(), alice2.close(), bob.close()]);
    await module.close();
  });

  it('shares a class-level budget between the tools of the class, and a global one between all', async () => {
    @RateLimit({ points: 2, duration: 60 })
    @Injectable()
    class Pair {
      @Tool()
      one() {
        return '1';
      }
      @Tool()
      two() {
        return '2';
      }
    }
    @Injectable()
    class Other {
      @Tool()
      three() {
        return '3';
      }
    }
    const module = await Test.createTestingModule({ providers: [Pair, Other] }).compile({
      limits: { rateLimit: { points: 4, duration: 60 } },
    });
    const client = await module.createClient(undefined, { era });
    expect(text(await client.callTool('one'))).toBe('1');
    expect(text(await client.callTool('two'))).toBe('2');
    expect(text(await client.callTool('one'))).toMatch(/^Rate limit 'class:Pair' exceeded/);
    // The refused call spent a global point too (limits are checked global first).
    expect(text(await client.callTool('three'))).toBe('3');
    expect(text(await client.callTool('three'))).toMatch(/^Rate limit 'global' exceeded \(4 per 60 s\)/);
    await module.close();
  });

  it('answers a prompt over its limit with JSON-RPC error −32029 and data.retryAfterMs', async () => {
    @Injectable()
    class Prompts {
      @RateLimit({ points: 1, duration: 30, by: () => 'everyone' })
      @Prompt()
      greet() {
        return 'hello';
      }
    }
    const module = await Test.createTestingModule({ providers: [Prompts] }).compile();
    const client = await module.createClient(undefined, { era });
    await client.getPrompt('greet');
    const error = await client.getPrompt('greet').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(LimitErrorCode.RateLimited);
    expect((error as McpError).data).toEqual({ limit: 'prompt:greet', retryAfterMs: expect.any(Number) });
    await module.close();
  });
});

describe('@RateLimit by session', () => {
  it('gives each session-era session its own bucket', async () => {
    @Injectable()
    class Limited {
      @RateLimit({ points: 1, duration: 60, by: 'session' })
      @Tool()
      ping() {
        return 'pong';
      }
    }
    const module = await Test.createTestingModule({ providers: [Limited] }).compile();
    const first = await module.createClient();
    const second = await module.createClient();
    expect((await first.callTool('ping')).isError).toBeUndefined();
    expect((await first.callTool('ping')).isError).toBe(true);
    expect((await second.callTool('ping')).isError).toBeUndefined();
    await module.close();
  });
});

describe.each(ERAS)('@Concurrency (%s era)', (era) => {
  it('runs at most n at once, queues FIFO, refuses when the queue is full, drops a cancelled waiter', async () => {
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    const startedEvent = new Map<string, ReturnType<typeof deferred<void>>>();
    for (const id of ['a', 'b', 'c', 'd']) {
      gates.set(id, deferred<void>());
      startedEvent.set(id, deferred<void>());
    }
    @Injectable()
    class Busy {
      @Concurrency(1, { queue: 2 })
      @Tool({ input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } })
      async work(@Args() args: { id: string }) {
        started.push(args.id);
        startedEvent.get(args.id)?.resolve();
        await gates.get(args.id)?.promise;
        return args.id;
      }
    }
    const module = await Test.createTestingModule({ providers: [Busy] }).compile();
    const client = await module.createClient(undefined, { era });
    const a = client.callTool('work', { id: 'a' });
    await startedEvent.get('a')?.promise;
    const cancel = new AbortController();
    const b = client.callTool('work', { id: 'b' }, { signal: cancel.signal });
    const c = client.callTool('work', { id: 'c' });
    // Queue full (b and c wait): refused at once.
    const d = await client.callTool('work', { id: 'd' });
    expect(d.isError).toBe(true);
    expect(text(d)).toBe("Tool 'work' is busy: 1 calls run and 2 wait already; try again later");
    cancel.abort();
    await expect(b).rejects.toThrow();
    gates.get('a')?.resolve();
    expect(text(await a)).toBe('a');
    await startedEvent.get('c')?.promise;
    gates.get('c')?.resolve();
    expect(text(await c)).toBe('c');
    expect(started).toEqual(['a', 'c']);
    await module.close();
  });
});

describe('bad limits are refused with a message naming the problem', () => {
  it('rejects bad decorator arguments when the class is defined', () => {
    expect(() => Timeout(0)).toThrow(
      '@Timeout(): the timeout must be a number of milliseconds in (0, 2147483647], got 0',
    );
    expect(() => RateLimit({ points: 1.5, duration: 1 })).toThrow(
      '@RateLimit(): points must be an integer ≥ 1, got 1.5',
    );
    expect(() => RateLimit({ points: 1, duration: 0 })).toThrow(
      '@RateLimit(): duration must be a positive number of seconds, got 0',
    );
    expect(() => RateLimit({ points: 1, duration: 1, by: 'user' as never })).toThrow(
      "@RateLimit(): by must be 'principal', 'session', 'ip' or a function, got user",
    );
    expect(() => Concurrency(0)).toThrow('@Concurrency(n): n must be an integer ≥ 1, got 0');
    expect(() => Concurrency(1, { queue: -1 })).toThrow(
      '@Concurrency(n, { queue }): queue must be an integer ≥ 0, got -1',
    );
  });

  it('rejects bad application limits at create', async () => {
    await expect(
      Test.createTestingModule({ providers: [] }).compile({ limits: { timeoutMs: -5 } }),
    ).rejects.toThrow('limits.timeoutMs: the timeout must be a number of milliseconds');
    await expect(
      Test.createTestingModule({ providers: [] }).compile({ limits: { onBackendError: 'maybe' as never } }),
    ).rejects.toThrow("limits.onBackendError must be 'allow' or 'deny', got maybe");
  });
});

it('refuses two rate limits that share a name with different budgets, at bootstrap', async () => {
  @Injectable()
  class Clash {
    @RateLimit({ points: 1, duration: 60, name: 'shared' })
    @Tool()
    one() {}
    @RateLimit({ points: 2, duration: 60, name: 'shared' })
    @Tool()
    two() {}
  }
  await expect(Test.createTestingModule({ providers: [Clash] }).compile()).rejects.toThrow(
    'Two rate limits share the name of rl:shared:principal with different budgets (1 per 60 s and 2 per 60 s); give one its own name',
  );
});
