import { z } from 'zod';
import type { ResolutionStage, Severity } from '../domain/model/incident.js';
import type { ServiceStatus } from '../domain/model/service.js';
import { documentList, feedDate, firstById, lenient, readItems, readJson } from './feed-text.js';
import type { FeedReader, VendorIncident, VendorMaintenance } from './vendor-snapshot.js';

/*
 * Instatus's public `{page}/summary.json`, as documented at
 * https://instatus.com/help/api/public-data: `page { name, url, status }` with
 * status UP | HASISSUES | UNDERMAINTENANCE, `activeIncidents[] { name, started,
 * status, impact, url }` and `activeMaintenances[] { name, start, status,
 * duration, url }`, dates in JavaScript's Date#toString form
 * (`Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)`). Payloads
 * seen in the wild carry ISO dates, `id` and `updatedAt`, link an incident as
 * `{page}/{id}` as well as `{page}/incident/{id}`, and leave out an empty list,
 * so all of these are optional here. The API reference
 * (https://instatus.com/help/api) gives the impact words (OPERATIONAL,
 * DEGRADEDPERFORMANCE, PARTIALOUTAGE, MINOROUTAGE, MAJOROUTAGE,
 * UNDERMAINTENANCE), which newer pages also use, after ALL/SOME/ONE, as the
 * page status. The document lists only open incidents, and has no components
 * and no update texts. Each incident and maintenance is read on its own: one
 * without a name or with an unreadable date is skipped, the rest is read.
 */

const active = {
  id: lenient(z.string().min(1)),
  name: z.string(),
  status: lenient(z.string()),
  url: lenient(z.string()),
  updatedAt: feedDate.nullish(),
};

const frame = z.object({
  page: z.object({ status: z.string() }),
  activeIncidents: documentList,
  activeMaintenances: documentList,
});

const activeIncident = z.object({ ...active, started: feedDate.nullish(), impact: lenient(z.string()) });

// A maintenance is its window: one the feed gives no start has none to show.
const activeMaintenance = z
  .object({ ...active, start: feedDate.nullish(), duration: lenient(z.union([z.string(), z.number()])) })
  .refine((m) => m.start != null, { message: 'is missing', path: ['start'] });

type ActiveIncident = z.output<typeof activeIncident>;

export const instatus = {
  kind: 'instatus',
  documents: (url) => [`${url.replace(/\/+$/, '')}/summary.json`],
  parse(bodies, context) {
    const body = readJson(bodies[0] ?? '', 'summary.json', frame);
    const skipped: string[] = [];
    const incidents = firstById(readItems(body.activeIncidents, 'summary.json: activeIncidents', activeIncident, skipped, (i) => toIncident(i, context.now)));
    const maintenances = firstById(
      readItems(body.activeMaintenances, 'summary.json: activeMaintenances', activeMaintenance, skipped, (m): VendorMaintenance => {
        const startsAt = m.start!;
        return {
          id: m.id ?? idFromUrl(m.url) ?? fallbackId(m.name, startsAt),
          name: m.name,
          startsAt,
          endsAt: endOf(startsAt, m.duration),
          status: m.status ?? 'NOTSTARTEDYET',
          components: [],
          url: m.url ?? null,
        };
      }),
    );
    const underway = maintenances.some((m) => normalize(m.status) === 'INPROGRESS');
    return { indicator: indicatorOf(body.page.status, incidents, underway), components: [], incidents, maintenances, skipped };
  },
} satisfies FeedReader<'instatus'>;

/** `duration` is in minutes, as a number or a numeric string; anything else says no end. */
function endOf(start: Date, duration: string | number | null | undefined): Date | null {
  const minutes = typeof duration === 'number' ? duration : /^\s*\d+(\.\d+)?\s*$/.test(duration ?? '') ? Number(duration) : NaN;
  if (!(minutes > 0)) return null;
  const end = new Date(start.getTime() + minutes * 60_000);
  return Number.isNaN(end.getTime()) ? null : end;
}

function normalize(word: string): string {
  return word.toUpperCase().replace(/[^A-Z]/g, '');
}

// Only a major outage is major: Instatus's other impacts (degraded, partial, minor) are statusbot's minor.
function severityOf(word: string): Severity {
  return normalize(word).endsWith('MAJOROUTAGE') ? 'major' : 'minor';
}

const STAGES: Record<string, ResolutionStage | undefined> = {
  INVESTIGATING: 'investigating',
  IDENTIFIED: 'identified',
  MONITORING: 'monitoring',
  RESOLVED: 'resolved',
};

/** UP, HASISSUES, UNDERMAINTENANCE, or a component word with ALL/SOME/ONE before it; null for a word not known here. */
function indicatorOf(pageStatus: string, incidents: readonly VendorIncident[], maintenanceUnderway: boolean): ServiceStatus | null {
  const word = normalize(pageStatus).replace(/^(ALL|SOME|ONE)/, '');
  const open = incidents.filter((i) => !i.resolved && normalize(i.severityFromProvider ?? '') !== 'OPERATIONAL');
  const worst: ServiceStatus | null = open.some((i) => i.severity === 'major') ? 'major' : open.length > 0 ? 'minor' : null;
  switch (word) {
    // Live pages keep saying UP while an incident they list is open (Manychat, 2026):
    // the open incident is read, so it decides over the page word.
    case 'UP':
      return worst ?? (maintenanceUnderway ? 'maintenance' : 'ok');
    case 'HASISSUES':
      return worst ?? 'minor';
    case 'UNDERMAINTENANCE':
      return worst ?? 'maintenance';
    case 'MAJOROUTAGE':
      return 'major';
    case 'DEGRADEDPERFORMANCE':
    case 'PARTIALOUTAGE':
    case 'MINOROUTAGE':
      return worst === 'major' ? 'major' : 'minor';
    default:
      return null;
  }
}

function toIncident(incident: ActiveIncident, now: Date): VendorIncident {
  const dated = incident.started ?? incident.updatedAt ?? null;
  const createdAt = dated ?? now;
  const updatedAt = incident.updatedAt ?? createdAt;
  const stage = STAGES[normalize(incident.status ?? '')] ?? 'investigating';
  const resolved = stage === 'resolved';
  return {
    id: incident.id ?? idFromUrl(incident.url) ?? fallbackId(incident.name, incident.started),
    title: incident.name,
    severity: severityOf(incident.impact ?? ''),
    severityFromProvider: incident.impact ?? null,
    url: incident.url ?? null,
    // summary.json carries no update text; the stage is all it says of the work.
    description: '',
    components: [],
    createdAt,
    updatedAt,
    resolved,
    resolvedAt: resolved ? updatedAt : null,
    updates: [{ stage, description: '', createdAt: updatedAt }],
    ...(dated === null ? { undated: true } : {}),
  };
}

/** Stable across reads: never the time of the read. */
function fallbackId(name: string, start: Date | null | undefined): string {
  return start ? `${name}@${start.toISOString()}` : name;
}

/** Instatus's pages end in the object's id: `…/incident/cl4a8n3070721qtmzvts760c4`. */
function idFromUrl(url: string | null | undefined): string | null {
  return /\/(?:incidents?|maintenances?)\/([^/?#]+)/.exec(url ?? '')?.[1] ?? null;
}
