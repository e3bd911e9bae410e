import { describe, expect, it } from 'vitest';
import { createResponseCache } from '../../src/http/response-cache.js';

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
