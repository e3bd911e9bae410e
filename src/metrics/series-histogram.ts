import type { Registry } from 'prom-client';

/** One series of a histogram: its label values fixed, so that an observation is a bucket search and two additions. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** What a registry reads from a metric at scrape, as prom-client's own metrics give it. */
interface Exposed {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: { metricName: string; labels: Record<string, string | number>; value: number }[];
}

/**
 * A histogram for the hot path (every request): each series is made once for
 * its label values and kept by the caller, and an observation touches only a
 * typed array. prom-client's own `Histogram` validates and hashes the labels
 * on every observation, even through `labels()`. Exposed through the same registry, in the same text as
 * prom-client's histograms (`_bucket` cumulative with `le`, `_sum`, `_count`).
 */
export class SeriesHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: Float64Array;
  private readonly series = new Map<string, { labels: Record<L, string>; counts: Float64Array; sum: number; count: number }>();

  private readonly labelNames: readonly L[];
  private readonly unlabelled: HistogramSeries | null;

  constructor(options: { name: string; help: string; labelNames?: readonly L[]; buckets: readonly number[]; registers: readonly Registry[] }) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    this.bounds = Float64Array.from([...options.buckets].sort((a, b) => a - b));
    // Without labels there is one series, shown (at zero) from the start, as prom-client does.
    this.unlabelled = this.labelNames.length === 0 ? this.labels() : null;
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  /** The series of these label values (in `labelNames` order), made on first use. */
  labels(...values: string[]): HistogramSeries {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values, not ${values.length}`);
    }
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      const labels = Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]])) as Record<L, string>;
      entry = { labels, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    const { bounds } = this;
    const target = entry;
    return {
      observe(value) {
        if (!Number.isFinite(value)) return;
        target.sum += value;
        target.count += 1;
        for (let i = 0; i < bounds.length; i++) {
          if (value <= bounds[i]!) {
            target.counts[i]! += 1;
            return;
          }
        }
      },
    };
  }

  /** For a histogram without labels. */
  observe(value: number): void {
    if (!this.unlabelled) throw new Error(`${this.name} takes ${this.labelNames.length} label values`);
    this.unlabelled.observe(value);
  }

  get(): Exposed {
    const values: Exposed['values'] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...labels }, value: sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...labels }, value: count });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }

  reset(): void {
    for (const entry of this.series.values()) {
      entry.counts.fill(0);
      entry.sum = 0;
      entry.count = 0;
    }
  }
}
