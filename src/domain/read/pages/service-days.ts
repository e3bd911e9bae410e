import type { IncidentSummary, Severity } from '../../model/incident.js';
import type { ServiceStatus } from '../../model/service.js';

export const DAY_MS = 86_400_000;
/** Days in a service's bar. */
export const BAR_DAYS = 90;
/** One day of a service's bar: its worst status, how much of it was up, and its incidents. */
export interface DayView {
  /** Start of the day (UTC). */
  start: Date;
  /** The worst status of the day; `none` before the service was shown (no data). */
  status: ServiceStatus | 'none';
  /** Share of the day (up to now) outside major incidents, 0..1; null without data. */
  uptime: number | null;
  incidents: { id: number; title: string; status: Severity }[];
}

const RANK: Record<ServiceStatus | 'none', number> = { none: 0, ok: 1, maintenance: 2, minor: 3, major: 4 };
const worstOf = <S extends ServiceStatus | 'none'>(statuses: readonly S[], fallback: S): S =>
  statuses.reduce((worst, s) => (RANK[s] > RANK[worst] ? s : worst), fallback);

export const dayStartOf = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** The service's bar: one day per cell, oldest first, the last one today. */
export function daysOf(
  service: { id: number; created_at: number },
  incidents: readonly IncidentSummary[],
  windows: readonly { starts_at: number; ends_at: number }[],
  now: number,
): DayView[] {
  const today = dayStartOf(now);
  const shownSince = dayStartOf(service.created_at);
  const days: DayView[] = [];
  for (let i = BAR_DAYS - 1; i >= 0; i--) {
    const start = today - i * DAY_MS;
    const end = Math.min(start + DAY_MS, now);
    // Incidents that began before the service was shown still count from the day they touch.
    const touching = incidents.filter((inc) => inc.createdAt.getTime() < end && (inc.resolvedAt?.getTime() ?? now) > start);
    if (start < shownSince && touching.length === 0) {
      days.push({ start: new Date(start), status: 'none', uptime: null, incidents: [] });
      continue;
    }
    const down = mergedLength(
      touching
        .filter((inc) => inc.status === 'major')
        .map((inc) => [Math.max(start, inc.createdAt.getTime()), Math.min(end, inc.resolvedAt?.getTime() ?? now)] as const),
    );
    const inMaintenance = windows.some((w) => w.starts_at < end && w.ends_at > start);
    const worst = worstOf(
      touching.map((inc) => inc.status),
      inMaintenance ? ('maintenance' as ServiceStatus) : 'ok',
    );
    days.push({
      start: new Date(start),
      status: worst,
      uptime: end > start ? Math.max(0, 1 - down / (end - start)) : 1,
      incidents: touching.map((inc) => ({ id: inc.id, title: inc.title, status: inc.status })),
    });
  }
  return days;
}

function mergedLength(intervals: readonly (readonly [number, number])[]): number {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let [from, to] = [Number.NaN, Number.NaN];
  for (const [a, b] of sorted) {
    if (Number.isNaN(from) || a > to) {
      if (!Number.isNaN(from)) total += to - from;
      [from, to] = [a, b];
    } else to = Math.max(to, b);
  }
  return Number.isNaN(from) ? total : total + (to - from);
}
