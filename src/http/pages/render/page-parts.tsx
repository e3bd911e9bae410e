import type { Incident, IncidentSummary } from '../../../domain/incidents/incident.js';
import type { PageStatus } from '../../../domain/status-pages/page-status.js';
import type { DayView } from '../../../domain/status-pages/page-view.js';
import type { ShownStatus } from '../../../domain/services/shown-status.js';
import { UpdateText } from './update-text.js';

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

export function When(props: { at: Date; day?: boolean }) {
  return <time datetime={props.at.toISOString()}>{props.day ? dayText(props.at) : dateTimeText(props.at)}</time>;
}

export function Status(props: { status: ShownStatus }) {
  return <span class={`status ${props.status}`}>{STATUS_WORDS[props.status]}</span>;
}

/** "No data: the feed has not been read yet": an unknown status with its reason. */
export const noDataText = (reason: string | null): string => (reason ? `No data: ${reason}` : 'No data');

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
 * 90 days, one cell each, with the day's status, uptime and incidents on hover
 * or keyboard focus (no script). Days before the service was shown are empty
 * grey cells (the legend says so): nothing to tell, nothing to focus.
 */
export function DayBars(props: { days: readonly DayView[]; label: string }) {
  return (
    <>
      <ol class="days" aria-label={props.label}>
        {props.days.map((d) =>
          d.status === 'none' ? (
            <li class="x" />
          ) : (
            <li class={CELL[d.status]} tabindex={0}>
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
      <div class="bar-legend" aria-hidden="true">
        <span>{props.days.length} days ago</span>
        <span>Grey: no data</span>
        <span>Today</span>
      </div>
    </>
  );
}

export function Timeline(props: { incident: Incident }) {
  return (
    <ol class="timeline">
      {[...props.incident.updates].reverse().map((u) => (
        <li>
          <span class="stage">{STAGE_WORDS[u.stage] ?? u.stage}</span> <When at={u.createdAt} />
          <div class="update-text">
            <UpdateText text={u.description} />
          </div>
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
          · resolved <When at={incident.resolvedAt} />
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
        <span class="muted">{incident.resolved ? 'Resolved' : incident.status === 'major' ? 'Major, ongoing' : 'Minor, ongoing'}</span>
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
      <div class="update-text">
        <UpdateText text={incident.description} />
      </div>
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
        <Status status={incident.resolved ? 'ok' : incident.status} /> {incident.resolved ? 'Resolved' : 'Ongoing'} · {incident.serviceName}
        {incident.userGenerated ? ' · reported by users, not confirmed by the provider' : ''}
      </p>
      <p class="muted">
        <IncidentTimes incident={incident} capital />
      </p>
      <Affected components={incident.components} />
    </>
  );
}
