import { z } from 'zod';
import type { ResolutionStage, Severity } from '../domain/model/incident.js';
import type { ServiceStatus } from '../domain/model/service.js';
import { feedDate, firstById, readItems, readJson } from './feed-text.js';
import type { FeedReader, VendorComponent, VendorIncident, VendorMaintenance } from './vendor-snapshot.js';

/*
 * status.io's public status API, `https://api.status.io/1.0/status/{page id}`
 * (https://kb.status.io/developers/public-status-api/): `result.status_overall`,
 * `result.status[]` (components, each with the `containers` it runs in),
 * `result.incidents[]` (the open ones only: a resolved incident leaves the
 * list, and the domain ends it then) and `result.maintenance.active/upcoming`.
 *
 * Statuses are codes: 100 operational, 200 planned maintenance, 300 degraded
 * performance, 400 partial service disruption, 500 service disruption, 600
 * security event. status.io ranks a security event above a disruption, and so
 * does statusbot (major). An incident message's `state` is its stage: 100
 * investigating, 200 identified, 300 monitoring.
 */

const STATUS_WORDS: Record<number, string | undefined> = {
  100: 'operational',
  200: 'under_maintenance',
  300: 'degraded_performance',
  400: 'partial_outage',
  500: 'major_outage',
  600: 'security_event',
};
const INDICATORS: Record<number, ServiceStatus | undefined> = { 100: 'ok', 200: 'maintenance', 300: 'minor', 400: 'minor', 500: 'major', 600: 'major' };
const STAGES: Record<number, ResolutionStage | undefined> = { 100: 'investigating', 200: 'identified', 300: 'monitoring' };

const code = z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value), z.number());
const named = z.object({ name: z.string() });

const component = z.object({
  name: z.string(),
  status: z.string().nullish(),
  status_code: code.nullish(),
  containers: z.array(z.object({ name: z.string(), status_code: code.nullish() })).nullish(),
});

const message = z.object({ details: z.string().nullish(), state: code.nullish(), status: code.nullish(), datetime: feedDate.nullish() });

const event = z.object({
  _id: z.string().min(1),
  name: z.string(),
  datetime_open: feedDate.nullish(),
  messages: z.array(message).nullish(),
  components_affected: z.array(named).nullish(),
  containers_affected: z.array(named).nullish(),
});

const maintenance = event.extend({ datetime_planned_start: feedDate.nullish(), datetime_planned_end: feedDate.nullish() });

const list = z.array(z.unknown()).nullish();
const document = z.object({
  result: z.object({
    status_overall: z.object({ status_code: code, status: z.string().nullish() }),
    status: list,
    incidents: list,
    maintenance: z.object({ active: list, upcoming: list }).nullish(),
  }),
});

type Event = z.output<typeof event>;

export const statusio = {
  kind: 'statusio',
  documents: (url) => [url],
  parse(bodies, context) {
    const { result } = readJson(bodies[0] ?? '', 'status', document);
    const skipped: string[] = [];
    const components = readItems(result.status ?? [], 'status: status', component, skipped).map(toComponent);
    const incidents = readItems(result.incidents ?? [], 'status: incidents', event, skipped).map((i) => toIncident(i, context.now));
    const active = readItems(result.maintenance?.active ?? [], 'status: maintenance.active', maintenance, skipped);
    const upcoming = readItems(result.maintenance?.upcoming ?? [], 'status: maintenance.upcoming', maintenance, skipped);
    return {
      indicator: indicatorOf(result.status_overall.status_code, incidents),
      components,
      incidents: firstById(incidents),
      maintenances: firstById([
        ...active.map((m) => toMaintenance(m, 'in_progress', context.now)),
        ...upcoming.map((m) => toMaintenance(m, 'scheduled', context.now)),
      ]),
      skipped,
    };
  },
} satisfies FeedReader<'statusio'>;

/** The page's overall code; an open incident outranks a planned maintenance, which status.io reports over it. */
function indicatorOf(overall: number, incidents: readonly VendorIncident[]): ServiceStatus | null {
  const status = INDICATORS[overall] ?? null;
  if (status !== 'maintenance' || incidents.length === 0) return status;
  return incidents.some((i) => i.severity === 'major') ? 'major' : 'minor';
}

function statusWord(statusCode: number | null | undefined, written: string | null | undefined): string {
  return STATUS_WORDS[statusCode ?? -1] ?? written ?? 'unknown';
}

function toComponent(c: z.output<typeof component>): VendorComponent {
  return { name: c.name, status: statusWord(c.status_code, c.status) };
}

function messagesOf(e: Event, fallback: Date) {
  return (e.messages ?? []).map((m) => ({ m, at: m.datetime ?? fallback })).sort((a, b) => a.at.getTime() - b.at.getTime());
}

function affected(e: Event): string[] {
  return [...new Set((e.components_affected ?? []).map((c) => c.name))];
}

function toIncident(e: Event, now: Date): VendorIncident {
  const opened = e.datetime_open ?? null;
  const messages = messagesOf(e, opened ?? now);
  const last = messages[messages.length - 1];
  const createdAt = opened ?? messages[0]?.at ?? now;
  // The worst status any message gave the affected components: what the incident did at its height.
  const worstCode = Math.max(0, ...messages.map(({ m }) => m.status ?? 0));
  let stage: ResolutionStage = 'investigating';
  return {
    id: e._id,
    title: e.name.trim(),
    severity: (worstCode >= 500 ? 'major' : 'minor') satisfies Severity,
    severityFromProvider: worstCode > 0 ? statusWord(worstCode, null) : null,
    // The API does not give the page's own address, only the page id.
    url: null,
    description: (last?.m.details ?? '').trim(),
    components: affected(e),
    createdAt,
    updatedAt: last?.at ?? createdAt,
    resolved: false,
    resolvedAt: null,
    updates: messages.map(({ m, at }) => {
      stage = STAGES[m.state ?? -1] ?? stage;
      return { stage, description: (m.details ?? '').trim(), createdAt: at };
    }),
  };
}

function toMaintenance(m: z.output<typeof maintenance>, status: string, now: Date): VendorMaintenance {
  return {
    id: m._id,
    name: m.name.trim(),
    startsAt: m.datetime_planned_start ?? m.datetime_open ?? now,
    endsAt: m.datetime_planned_end ?? null,
    status,
    components: affected(m),
    url: null,
  };
}
