import type { ProbeBucket } from '../../../domain/monitors/probe-hours.js';
import { combine } from '../../../domain/monitors/probe-hours.js';
import { plural } from '../../../domain/plural.js';

// The drawing's own units; the stylesheet scales it to the width of the page.
const WIDTH = 560;
const HEIGHT = 150;
const LEFT = 72;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 24;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const BASE_Y = TOP + PLOT_H;

export const msText = (ms: number): string => `${Math.round(ms)} ms`;

/** Axis values short enough for the margin: "250 ms", "1.5 s". */
const axisText = (ms: number): string => (ms < 1000 ? msText(ms) : `${Number((ms / 1000).toFixed(2))} s`);

/** Coordinates with at most one decimal: paths stay short. */
const n = (v: number): string => String(Math.round(v * 10) / 10);

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `v` (at least 10 ms). */
function niceCeiling(v: number): number {
  const target = Math.max(v, 10);
  const magnitude = 10 ** Math.floor(Math.log10(target));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= target) return step * magnitude;
  return 10 * magnitude;
}

/** What the chart shows, in words: its accessible name and its tooltip. */
export function chartSummary(buckets: readonly ProbeBucket[], period: string): string {
  const total = combine(buckets);
  if (total.probes === 0) return `Response time, ${period}: no data`;
  const failed = total.probes - total.ups;
  const failures = failed === 0 ? 'no failed probes' : `${plural(failed, 'failed probe')} of ${total.probes}`;
  if (total.avgMs === null) return `Response time, ${period}: no successful probe; ${failures}`;
  return `Average response time, ${period}: ${msText(total.avgMs)}, max ${msText(total.maxMs ?? total.avgMs)}; ${failures}`;
}

export interface ResponseChartProps {
  /** Oldest first, evenly spaced. */
  buckets: readonly ProbeBucket[];
  /** Named in the description: "last 24 hours". */
  period: string;
  /** Under the first and the last bucket: "24 h ago", "now". */
  from: string;
  to: string;
}

/**
 * A line of the average response time per bucket (broken where there is no
 * data), a triangle under each bucket with failed probes, and axes with their
 * values. Plain SVG: no script, no inline style.
 */
export function ResponseChart(props: ResponseChartProps) {
  const { buckets } = props;
  const summary = chartSummary(buckets, props.period);
  // Some room above the highest average, so that the line does not run along the top.
  const top = niceCeiling(1.1 * Math.max(0, ...buckets.map((b) => b.avgMs ?? 0)));
  const step = PLOT_W / Math.max(1, buckets.length);
  const xOf = (i: number) => LEFT + (i + 0.5) * step;
  const yOf = (ms: number) => BASE_Y - (ms / top) * PLOT_H;
  const half = Math.min(4, step * 0.45);

  let line = '';
  let fails = '';
  buckets.forEach((b, i) => {
    const x = xOf(i);
    if (b.avgMs !== null) {
      const y = n(yOf(b.avgMs));
      const joined = i > 0 && buckets[i - 1]!.avgMs !== null;
      const alone = !joined && buckets[i + 1]?.avgMs == null;
      // A bucket between two without data is drawn as a short dash, so that it shows.
      line += joined ? `L${n(x)} ${y}` : alone ? `M${n(x - 3)} ${y}H${n(x + 3)}` : `M${n(x)} ${y}`;
    }
    if (b.probes > b.ups) fails += `M${n(x - half)} ${BASE_Y}L${n(x + half)} ${BASE_Y}L${n(x)} ${BASE_Y - 7}Z`;
  });
  const grid = [0, 0.5, 1].map((f) => `M${LEFT} ${n(BASE_Y - f * PLOT_H)}H${WIDTH - RIGHT}`).join('');

  return (
    <svg class="chart rt" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary}>
      <title>{summary}</title>
      <path class="axis" d={`${grid}M${LEFT} ${TOP}V${BASE_Y}`} />
      {[0, 0.5, 1].map((f) => (
        <text x={LEFT - 6} y={n(BASE_Y - f * PLOT_H + 4)} text-anchor="end">
          {axisText(top * f)}
        </text>
      ))}
      <text x={LEFT} y={HEIGHT - 6}>
        {props.from}
      </text>
      <text x={WIDTH - RIGHT} y={HEIGHT - 6} text-anchor="end">
        {props.to}
      </text>
      {line ? <path class="line" d={line} /> : null}
      {fails ? <path class="fail" d={fails} /> : null}
      {line || fails ? null : (
        <text x={LEFT + PLOT_W / 2} y={TOP + PLOT_H / 2} text-anchor="middle">
          No data yet
        </text>
      )}
    </svg>
  );
}
