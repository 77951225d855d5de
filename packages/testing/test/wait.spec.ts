import { Changes, eventually } from '@gantry/testing';

describe('Changes', () => {
  it('resolves at once when the condition already holds', async () => {
    await expect(new Changes().until(() => true)).resolves.toBeUndefined();
  });

  it('re-checks at each change and resolves on the first that satisfies the condition', async () => {
    const changes = new Changes();
    const seen: number[] = [];
    let checks = 0;
    const done = changes.until(() => {
      checks++;
      return seen.length >= 2;
    });
    seen.push(1);
    changes.changed();
    seen.push(2);
    changes.changed();
    seen.push(3);
    changes.changed();
    await done;
    // The initial check, then one per change until it held; none after.
    expect(checks).toBe(3);
  });

  it('rejects after timeoutMs, naming what it waited for', async () => {
    await expect(new Changes().until(() => false, { timeoutMs: 10, what: 'the log line' })).rejects.toThrow(
      'timed out after 10 ms waiting for the log line',
    );
  });
});

describe('eventually', () => {
  it('polls a synchronous or asynchronous check until it holds', async () => {
    let calls = 0;
    await eventually(async () => ++calls === 3, { intervalMs: 1 });
    expect(calls).toBe(3);
  });

  it('rejects after timeoutMs, naming what it waited for', async () => {
    await expect(eventually(() => false, { timeoutMs: 20, what: 'the hub to empty' })).rejects.toThrow(
      'timed out after 20 ms waiting for the hub to empty',
    );
  });
});
