import { describe, expect, it } from 'vitest';
import { createMakingOnce, createResponseCache } from '../../src/http/response-cache.js';

describe('a response cache', () => {
  it('serves what was stored under a key while the change marker is the same', () => {
    const cache = createResponseCache<string>(10);
    cache.set('1 /incidents/7', 'm1', 'rendered');
    expect(cache.get('1 /incidents/7', 'm1')).toBe('rendered');
    expect(cache.get('1 /incidents/7', 'm1')).toBe('rendered');
  });

  it('has nothing for a key never stored', () => {
    const cache = createResponseCache<string>(10);
    cache.set('1 /incidents/7', 'm1', 'rendered');
    expect(cache.get('2 /incidents/7', 'm1')).toBeUndefined();
    expect(cache.get('1 /incidents/8', 'm1')).toBeUndefined();
  });

  it('has nothing once the marker moved on, and serves what is rendered under the new one', () => {
    const cache = createResponseCache<string>(10);
    cache.set('k', 'm1', 'before');
    expect(cache.get('k', 'm2')).toBeUndefined();
    cache.set('k', 'm2', 'after');
    expect(cache.get('k', 'm2')).toBe('after');
    // A marker never comes back: what was rendered under the old one is gone.
    expect(cache.get('k', 'm1')).toBeUndefined();
  });

  it('holds at most its bound: a new key beyond it drops the others', () => {
    const cache = createResponseCache<number>(3);
    for (let i = 0; i < 3; i++) cache.set(`k${i}`, 'm', i);
    expect([0, 1, 2].map((i) => cache.get(`k${i}`, 'm'))).toEqual([0, 1, 2]);
    cache.set('k3', 'm', 3);
    expect([0, 1, 2, 3].map((i) => cache.get(`k${i}`, 'm'))).toEqual([undefined, undefined, undefined, 3]);
  });

  it('replaces a stale answer in place when full, dropping nothing else', () => {
    const cache = createResponseCache<number>(2);
    cache.set('a', 'm1', 1);
    cache.set('b', 'm1', 2);
    cache.set('a', 'm2', 3);
    expect(cache.get('a', 'm2')).toBe(3);
    expect(cache.get('b', 'm1')).toBe(2);
  });
});

describe('answers made once', () => {
  /** A make whose answer the test hands out when it likes, counting the times it ran. */
  function controlled() {
    const runs: { resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
    const make = () => new Promise<string>((resolve, reject) => runs.push({ resolve, reject }));
    return { runs, make };
  }

  it('makes an answer once for every request that asks under the same key and marker while it is made', async () => {
    const once = createMakingOnce<string>();
    const { runs, make } = controlled();
    const asked = [once('k', 'm1', make), once('k', 'm1', make), once('k', 'm1', make)];
    expect(runs).toHaveLength(1);
    runs[0]!.resolve('page');
    expect(await Promise.all(asked)).toEqual(['page', 'page', 'page']);
  });

  it('makes anew under another marker or key, and once the answer is made', async () => {
    const once = createMakingOnce<string>();
    const { runs, make } = controlled();
    const first = once('k', 'm1', make);
    const changed = once('k', 'm2', make);
    const other = once('j', 'm2', make);
    expect(runs).toHaveLength(3);
    for (const [i, run] of runs.entries()) run.resolve(`answer ${i}`);
    expect(await Promise.all([first, changed, other])).toEqual(['answer 0', 'answer 1', 'answer 2']);
    const again = once('k', 'm2', make);
    expect(runs).toHaveLength(4);
    runs[3]!.resolve('answer 3');
    expect(await again).toBe('answer 3');
  });

  it('hands a failure to every request that waited, and tries again at the next', async () => {
    const once = createMakingOnce<string>();
    const { runs, make } = controlled();
    const asked = [once('k', 'm1', make), once('k', 'm1', make)];
    runs[0]!.reject(new Error('database unavailable'));
    for (const result of await Promise.allSettled(asked)) expect(result).toMatchObject({ status: 'rejected', reason: { message: 'database unavailable' } });
    const retried = once('k', 'm1', make);
    expect(runs).toHaveLength(2);
    runs[1]!.resolve('page');
    expect(await retried).toBe('page');
  });
});
