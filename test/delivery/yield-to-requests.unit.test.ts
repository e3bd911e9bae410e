import { describe, expect, it } from 'vitest';
import { followEventLoop, nextCeiling } from '../../src/delivery/yield-to-requests.js';
import { waitUntil } from '../helpers/wait-until.js';

const rule = { max: 64, min: 4, lateMs: 4 };

describe('the ceiling of deliveries under way', () => {
  it('halves after a window whose loop ran late, never below its least', () => {
    expect(nextCeiling(64, 20, rule)).toBe(32);
    expect(nextCeiling(32, 4.5, rule)).toBe(16);
    expect(nextCeiling(5, 50, rule)).toBe(4);
    expect(nextCeiling(4, 50, rule)).toBe(4);
  });

  it('grows back a sixteenth of the concurrency per window on time, never above it', () => {
    expect(nextCeiling(4, 0, rule)).toBe(8);
    expect(nextCeiling(4, 4, rule)).toBe(8);
    expect(nextCeiling(62, 1, rule)).toBe(64);
    expect(nextCeiling(64, 0, rule)).toBe(64);
    expect(nextCeiling(1, 0, { max: 3, min: 1, lateMs: 4 })).toBe(2);
  });

  it("follows this process's event loop: a loop blocked for tens of milliseconds lowers it", async () => {
    const ceiling = followEventLoop(rule, 50);
    try {
      expect(ceiling.current()).toBe(64);
      await waitUntil(
        () => {
          const end = performance.now() + 40;
          while (performance.now() < end) {
            // The loop is held, as by a long synchronous write.
          }
          return ceiling.current() < 64;
        },
        { what: 'the ceiling to drop below the concurrency' },
      );
    } finally {
      ceiling.stop();
    }
  });
});
