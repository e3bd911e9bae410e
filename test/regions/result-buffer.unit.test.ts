import { describe, expect, it } from 'vitest';
import { createResultBuffer } from '../../src/agent/result-buffer.js';

const result = (at: number) => ({ monitorId: 1, ok: true, reason: null, latencyMs: 1, at, seq: at });

describe("a probe agent's result buffer", () => {
  it('drops the oldest results when full, counts each drop, and reports drops until the server takes them', () => {
    const drops: number[] = [];
    const buffer = createResultBuffer(3, (total) => drops.push(total));
    for (let at = 1; at <= 5; at++) buffer.push(result(at));
    expect(buffer.peek(10).map((r) => r.at)).toEqual([3, 4, 5]);
    expect(drops).toEqual([1, 2]);
    expect(buffer.unreportedDrops).toBe(2);
    buffer.sent(2, buffer.unreportedDrops);
    expect(buffer.peek(10).map((r) => r.at)).toEqual([5]);
    expect(buffer.unreportedDrops).toBe(0);
    expect(buffer.droppedTotal).toBe(2);
  });
});
