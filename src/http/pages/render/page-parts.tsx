import type { Incident, IncidentSummary, Severity } from '../../../domain/model/incident.js';
import type { PageStatus } from '../../../domain/read/pages/page-status.js';
import type { DayView } from '../../../domain/read/pages/service-days.js';
import type { ShownStatus } from '../../../domain/model/shown-status.js';
import { TextBlock } from '../../../markup/update-text.js';

/** Words for a status: never shown by colour alone. */
export const STATUS_WORDS: Record<ShownStatus, string> = {
  ok: 'Operational',
  minor: 'Degraded',
  major: 'Major outage',
  maintenance: 'Under maintenance',
  unknown: 'No data',
};

export const BANNER_WORDS: Record<PageStatus, string> = {
  ok: 'All systems operational',
  minor: 'Some systems are degraded',
  partial: 'Partial outage',
  major: 'Major outage',
  maintenance: 'Maintenance under way',
  unknown: 'No data yet',
  empty: 'This page shows nothing yet',
};

const STAGE_WORDS: Record<string, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** "23 Nov 2026, 13:27 UTC" (pages are rendered once for every reader, so in UTC). */
export const dateTimeText = (d: Date): string =>
  `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
export const dayText = (d: Date): string => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

/** A time in UTC; the page's script shows it in the reader's time zone. A day (`day`) stays a UTC day. */
export function When(props: { at: Date; day?: boolean }) {
  return props.day ? (
    <time datetime={props.at.toISOString()} data-utc="">
      {dayText(props.at)}
    </time>
  ) : (
    <time datetime={props.at.toISOString()}>{dateTimeText(props.at)}</time>
  );
}

/** "2 h 5 min", "3 d 4 h", "45 min", "under a minute": how long something lasted. */
export function durationText(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return rest > 0 ? `${hours} h ${rest} min` : `${hours} h`;
  return `${rest} min`;
}

const SEVERITY_WORDS: Record<Severity, string> = { minor: 'Minor', major: 'Major' };

/** An incident's severity, kept once it is resolved: "Minor", "Major" with the status' shape. */
export function SeverityBadge(props: { severity: Severity }) {
  return <span class={`status ${props.severity}`}>{SEVERITY_WORDS[props.severity]}</span>;
}

/** "Resolved · lasted 2 h 5 min", or "Ongoing". */
export function resolutionText(incident: IncidentSummary): string {
  if (!incident.resolved) return 'Ongoing';
  return incident.resolvedAt ? `Resolved · lasted ${durationText(incident.resolvedAt.getTime() - incident.createdAt.getTime())}` : 'Resolved';
}

export function Status(props: { status: ShownStatus }) {
  return <span class={`status ${props.status}`}>{STATUS_WORDS[props.status]}</span>;
}

/** "No data: the vendor's status feed could not be read since 22 Nov 2026, 10:42 UTC": an unknown status with its reason. */
export function NoData(props: { reason: string | null; since: Date | null }) {
  if (props.reason === null) return <>No data</>;
  return (
    <>
      No data: {props.reason}
      {props.since ? (
        <>
          {' since '}
          <When at={props.since} />
        </>
      ) : null}
    </>
  );
}

/** "Affected: API, Webhooks": the vendor's components an incident touches, when it names any. */
export function Affected(props: { components: readonly string[] }) {
  return props.components.length === 0 ? null : <p class="muted affected">Affected: {props.components.join(', ')}</p>;
}

/** "3 Dec 2026, 02:00–04:00 UTC", or both dates in full when it spans days; "from …" without an end. */
export function spanText(start: Date, end: Date | null): string {
  if (end === null) return `from ${dateTimeText(start)}`;
  if (dayText(start) !== dayText(end)) return `${dateTimeText(start)} – ${dateTimeText(end)}`;
  return `${dayText(start)}, ${pad(start.getUTCHours())}:${pad(start.getUTCMinutes())}–${pad(end.getUTCHours())}:${pad(end.getUTCMinutes())} UTC`;
}

export const percent = (share: number): string => {
  const p = share * 100;
  return `${p === 100 || p === 0 ? p.toFixed(0) : p >= 99.99 ? '99.99' : p.toFixed(2)}%`;
};

// Bar cells are many (90 per service): short class names keep pages small. o ok, n minor, j major, m maintenance, x no data.
const CELL: Record<DayView['status'], string> = { ok: 'o', minor: 'n', major: 'j', maintenance: 'm', none: 'x' };

/**
 * The `tabindex` of each cell of a bar: one Tab stop per bar (the last day
 * that can take focus, today), the others reached with arrow keys by the
 * page's script (a roving tabindex). Without the script, Tab still shows
 * today and screen readers read every day from the list.
 */
export function rovingTabIndex(focusable: readonly boolean[]): (number | undefined)[] {
  const stop = focusable.lastIndexOf(true);
  return focusable.map((can, i) => (!can ? undefined : i === stop ? 0 : -1));
}

/** "90 days ago", or "30 days ago" where a narrow screen shows only the last 30 (see the stylesheet). */
export function BarLegend(props: { days: number; grey: string }) {
  return (
    <div class="bar-legend" aria-hidden="true">
      <span>
        <span class="wide">{props.days} days ago</span>
        <span class="narrow">{Math.min(props.days, PHONE_DAYS)} days ago</span>
      </span>
      <span>{props.grey}</span>
      <span>Today</span>
    </div>
  );
}

/** Days a bar shows on a narrow screen, so that each cell stays wide enough to see and touch. */
export const PHONE_DAYS = 30;

/**
 * 90 days, one cell each, with the day's status, uptime and incidents on hover
 * or keyboard focus. Days before the service was shown are empty grey cells
 * (the legend says so): nothing to tell, nothing to focus.
 */
export function DayBars(props: { days: readonly DayView[]; label: string }) {
  const tabIndex = rovingTabIndex(props.days.map((d) => d.status !== 'none'));
  return (
    <>
      <ol class="days" aria-label={props.label}>
        {props.days.map((d, i) =>
          d.status === 'none' ? (
            <li class="x" />
          ) : (
            <li class={CELL[d.status]} tabindex={tabIndex[i]}>
              <p>
                {`${dayText(d.start)}: ${d.status === 'ok' && d.incidents.length === 0 ? 'no incidents' : STATUS_WORDS[d.status]}, ${percent(d.uptime ?? 1)} up`}
                {d.incidents.map((i) => (
                  <>
                    <br />
                    {`${i.status === 'major' ? 'Major' : 'Minor'}: ${i.title}`}
                  </>
                ))}
              </p>
            </li>
          ),
        )}
      </ol>
      <BarLegend days={props.days.length} grey="Grey: no data" />
    </>
  );
}

export function Timeline(props: { incident: Incident }) {
  return (
    <ol class="timeline">
      {[...props.incident.updates].reverse().map((u) => (
        <li>
          <span class="stage">{STAGE_WORDS[u.stage] ?? u.stage}</span> <When at={u.createdAt} />
          <TextBlock text={u.description} />
        </li>
      ))}
    </ol>
  );
}

/** "began … · resolved …" */
function IncidentTimes(props: { incident: IncidentSummary; capital?: boolean }) {
  const { incident } = props;
  return (
    <>
      {props.capital ? 'Began' : 'began'} <When at={incident.createdAt} />
      {incident.resolvedAt ? (
        <>
          {' '}
          · resolved <When at={incident.resolvedAt} /> · lasted {durationText(incident.resolvedAt.getTime() - incident.createdAt.getTime())}
        </>
      ) : null}
    </>
  );
}

export function IncidentCard(props: { incident: Incident; href: string }) {
  const { incident } = props;
  return (
    <article class="card">
      <div class="row">
        <h3>
          <a href={props.href}>{incident.title}</a>
        </h3>
        <Status status={incident.resolved ? 'ok' : incident.status} />
      </div>
      <p class="muted">
        {incident.serviceName} · <IncidentTimes incident={incident} />
      </p>
      <Affected components={incident.components} />
      <Timeline incident={incident} />
    </article>
  );
}

export function IncidentLine(props: { incident: IncidentSummary; href: string }) {
  const { incident } = props;
  return (
    <li class="card">
      <div class="row">
        <a href={props.href}>{incident.title}</a>
        <span>
          <SeverityBadge severity={incident.status} /> <span class="muted">{resolutionText(incident)}</span>
        </span>
      </div>
      <p class="muted">
        {incident.serviceName} · <When at={incident.createdAt} />
        {incident.resolvedAt ? (
          <>
            {' – '}
            <When at={incident.resolvedAt} />
          </>
        ) : null}
      </p>
      <Affected components={incident.components} />
      <TextBlock text={incident.description} />
    </li>
  );
}

/** An incident page's heading: its title, state, service and times. */
export function IncidentHeading(props: { incident: Incident }) {
  const { incident } = props;
  return (
    <>
      <h1>{incident.title}</h1>
      <p>
        <SeverityBadge severity={incident.status} /> {resolutionText(incident)} · {incident.serviceName}
        {incident.userGenerated ? ' · reported by users, not confirmed by the provider' : ''}
      </p>
      <p class="muted">
        <IncidentTimes incident={incident} capital />
      </p>
      <Affected components={incident.components} />
    </>
  );
}
