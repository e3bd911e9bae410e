import { describe, expect, it } from 'vitest';
import { paddedIds } from '../../src/db/dialect.js';
import { batchedLookup } from '../../src/infrastructure/batched-lookup.js';

describe('batchedLookup', () => {
  it('answers the keys asked in one turn with one load, and later ones with another', async () => {
    const loads: number[][] = [];
    const lookup = batchedLookup(async (keys: readonly number[]) => {
      loads.push([...keys]);
      return new Map(keys.filter((k) => k !== 3).map((k) => [k, `value ${k}`]));
    });
    expect(await Promise.all([lookup(1), lookup(2), lookup(1), lookup(3)])).toEqual(['value 1', 'value 2', 'value 1', undefined]);
    expect(await lookup(4)).toBe('value 4');
    expect(loads).toEqual([[1, 2, 3], [4]]);
  });

  it('rejects every caller of a batch whose load failed, and the next batch loads again', async () => {
    let fail = true;
    const lookup = batchedLookup(async (keys: readonly string[]) => {
      if (fail) throw new Error('connection lost');
      return new Map(keys.map((k) => [k, k.length]));
    });
    const results = await Promise.allSettled([lookup('a'), lookup('bb')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await lookup('ccc')).toBe(3);
  });
});

describe('paddedIds', () => {
  it('pads a list to a power of two with its last id, so that few statement shapes occur', () => {
    expect(paddedIds([])).toEqual([]);
    expect(paddedIds([7])).toEqual([7]);
    expect(paddedIds([1, 2, 3])).toEqual([1, 2, 3, 3]);
    expect(paddedIds([1, 2, 3, 4])).toEqual([1, 2, 3, 4]);
    expect(paddedIds(Array.from({ length: 1000 }, (_, i) => i))).toHaveLength(1024);
  });
});
