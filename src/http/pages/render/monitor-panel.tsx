import type { MonitorPanelData, ShownMonitorStatus } from '../../../domain/read/pages/monitor-panels.js';
import type { ProbeBucket } from '../../../domain/monitors/probe-hours.js';
import { HISTORY_DAYS } from '../../../domain/monitors/probe-hours.js';
import { BarLegend, dayText, percent, rovingTabIndex } from './page-parts.js';
import { ResponseChart, msText } from './response-chart.js';

/** A monitor's own page, under the status page's base. */
export const monitorHref = (base: string, id: number): string => `${base}/monitors/${id}`;

/** Below this share of successful probes (over an hour down) a day is shown as down; from it to under 100% as degraded. */
const DEGRADED_FROM = 0.95;

const MONITOR_WORDS: Record<ShownMonitorStatus, [cls: string, word: string]> = {
  up: ['ok', 'Up'],
  failing: ['minor', 'Last probe failed'],
  down: ['major', 'Down'],
  unknown: ['unknown', 'No data yet'],
};

/** The monitor's state in a word beside its shape; never colour alone. */
export function MonitorStatus(props: { monitor: MonitorPanelData }) {
  const [cls, word] = MONITOR_WORDS[props.monitor.status];
  return <span class={`status ${cls}`}>{word}</span>;
}

// Cells are many (90 per monitor): the short class names of the service bars keep pages small.
const cellOf = (b: ProbeBucket): string => (b.uptime === null ? 'x' : b.uptime === 1 ? 'o' : b.uptime >= DEGRADED_FROM ? 'n' : 'j');

/** "99.31% up, 12 of 1440 probes failed, avg 120 ms": one bucket in words. */
export function bucketText(b: ProbeBucket): string {
  if (b.uptime === null) return 'No data';
  const failed = b.probes - b.ups;
  const failures = failed === 0 ? `${b.probes} probes, none failed` : `${failed} of ${b.probes} probes failed`;
  return `${percent(b.uptime)} up, ${failures}${b.avgMs === null ? '' : `, avg ${msText(b.avgMs)}`}`;
}

/** 90 days, one cell each (shorter as more probes failed), with the day in words on hover or keyboard focus; one Tab stop (see DayBars). */
function UptimeBars(props: { name: string; days: readonly ProbeBucket[] }) {
  const tabIndex = rovingTabIndex(props.days.map(() => true));
  return (
    <>
      <ol class="days probes" aria-label={`Uptime of ${props.name}, last ${props.days.length} days`}>
        {props.days.map((d, i) => (
          <li class={cellOf(d)} tabindex={tabIndex[i]}>
            <p>
              <b>{dayText(d.start)}</b> {bucketText(d)}
            </p>
          </li>
        ))}
      </ol>
      <BarLegend days={props.days.length} grey="Grey: no data, not counted" />
    </>
  );
}

export interface MonitorPanelProps {
  monitor: MonitorPanelData;
  /** Where the status page's links start (PublicRequest.base). */
  base: string;
  /** On the monitor's own page, whose heading already names it: no heading, no link. */
  own?: boolean;
  /** The region whose probes `monitor.history` holds, named in the charts; absent for all regions together. */
  region?: string;
}

/**
 * A custom monitor on a public status page: its name and status, 90 days of
 * uptime bars, its uptime over them, and its response time over the last 24
 * hours and 90 days.
 */
export function MonitorPanel(props: MonitorPanelProps) {
  const { monitor } = props;
  const { history } = monitor;
  const overall = history.last90Days.uptime;
  const from = props.region === undefined ? '' : ` from ${props.region}`;
  return (
    <section class="card monitor">
      {props.own ? null : (
        <div class="row">
          <h3>
            <a href={monitorHref(props.base, monitor.id)}>{monitor.name}</a>
          </h3>
          <MonitorStatus monitor={monitor} />
        </div>
      )}
      <p class="muted">{overall === null ? 'No probe results yet' : `${percent(overall)} uptime${from} over the last ${HISTORY_DAYS} days`}</p>
      {monitor.regions.length > 1 ? (
        <ul class="regions" aria-label={`Latest probe of ${monitor.name} by region`}>
          {monitor.regions.map((r) => (
            <li>
              <b>{r.region}</b> {r.failing ? 'last probe failed' : r.latencyMs === null ? 'up' : msText(r.latencyMs)}
            </li>
          ))}
        </ul>
      ) : null}
      <UptimeBars name={monitor.name} days={history.days} />
      <figure class="rt">
        <figcaption>Response time{from}, last 24 hours</figcaption>
        <ResponseChart buckets={history.hours} period={`last 24 hours${from}`} from="24 h ago" to="now" />
      </figure>
      <figure class="rt">
        <figcaption>
          Response time{from}, last {HISTORY_DAYS} days
        </figcaption>
        <ResponseChart buckets={history.days} period={`last ${HISTORY_DAYS} days${from}`} from={`${HISTORY_DAYS} days ago`} to="today" />
      </figure>
      <p class="legend muted" aria-hidden="true">
        Line: average response time. ▲ failed probes.
      </p>
    </section>
  );
}
