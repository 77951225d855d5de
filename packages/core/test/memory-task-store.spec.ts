// The in-memory task store's own bound: it never keeps more than maxTasks tasks.
import { MemoryTaskStore, type StoredTask } from '@gantry/core';

function task(taskId: string, owner: string, status: StoredTask['status'] = 'working'): StoredTask {
  return {
    taskId,
    owner,
    era: 'session',
    tool: 't',
    status,
    createdAt: 1,
    lastUpdatedAt: 1,
    ttlMs: null,
    pollIntervalMs: 1000,
    node: 'n',
    leaseExpiresAt: Number.MAX_SAFE_INTEGER,
  };
}

const limits = { maxActivePerOwner: 100 };

describe('MemoryTaskStore bound', () => {
  it('makes room by dropping the oldest finished task, and refuses when every task still runs', async () => {
    const store = new MemoryTaskStore(2);
    expect(await store.create(task('a', 'x', 'completed'), limits)).toBe(true);
    expect(await store.create(task('b', 'y'), limits)).toBe(true);
    expect(await store.create(task('c', 'z'), limits)).toBe(true);
    expect(await store.get('a')).toBeUndefined();
    expect(store.size).toBe(2);
    expect(await store.create(task('d', 'w'), limits)).toBe(false);
    expect(await store.get('d')).toBeUndefined();
    await store.close();
  });
});
