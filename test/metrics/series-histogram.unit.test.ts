import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesHistogram } from '../../src/metrics/series-histogram.js';

const BUCKETS = [0.001, 0.005, 0.01, 0.1, 1];

/** The same observations into prom-client's own histogram and into ours, each in a registry of its own. */
function both(labelNames: string[], observations: [string[], number][]) {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({ name: 'x_seconds', help: 'Things.', labelNames, buckets: BUCKETS, registers: [theirs] });
  const fast = new SeriesHistogram({ name: 'x_seconds', help: 'Things.', labelNames, buckets: BUCKETS, registers: [ours] });
  for (const [labels, value] of observations) {
    if (labels.length === 0) reference.observe(value);
    else reference.labels(...labels).observe(value);
    if (labels.length === 0) fast.observe(value);
    else fast.labels(...labels).observe(value);
  }
  return { theirs, ours, fast };
}

describe('the request histogram', () => {
  it('is exposed exactly as prom-client exposes the same observations', async () => {
    const { theirs, ours } = both(
      ['route', 'status'],
      [
        [['/a', '200'], 0.0004],
        [['/a', '200'], 0.001],
        [['/a', '200'], 0.03],
        [['/a', '404'], 2.5],
        [['/b/:id', '200'], 0.007],
        [['/a', '200'], 0.0099],
      ],
    );
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('shows a histogram without labels at zero before its first observation, as prom-client does', async () => {
    const { theirs, ours } = both([], []);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const observed = both(
      [],
      [
        [[], 0.2],
        [[], 0.0001],
      ],
    );
    expect(await observed.ours.metrics()).toBe(await observed.theirs.metrics());
  });

  it('refuses label values that do not match its label names', () => {
    const { fast } = both(['route'], []);
    expect(() => fast.labels('/a', 'extra')).toThrow(/takes 1 label values, not 2/);
    expect(() => fast.observe(1)).toThrow(/takes 1 label values/);
  });

  it('keeps one series per label values, and reset sets every series back to zero', async () => {
    const { ours, fast } = both(['route'], [[['/a'], 0.5]]);
    fast.labels('/a').observe(0.5);
    expect(await ours.metrics()).toContain('x_seconds_count{route="/a"} 2');
    ours.resetMetrics();
    expect(await ours.metrics()).toContain('x_seconds_count{route="/a"} 0');
  });
});
