import { z } from 'zod';
import type { Severity } from '../domain/model/incident.js';
import type { ServiceStatus } from '../domain/model/service.js';
import { feedDate, firstById, readItems, readJson } from './feed-text.js';
import type { FeedReader, VendorIncident, VendorMaintenance, VendorUpdate } from './vendor-snapshot.js';

/*
 * A Better Stack (formerly Better Uptime) status page's `{page}/index.json`
 * (https://betterstack.com/docs/uptime/status-pages/subscribing-to-status-updates/subscribing-to-api/):
 * a JSON:API document whose `data.attributes.aggregate_state` is the page's
 * status (operational, degraded, downtime, maintenance) and whose `included[]`
 * holds the page's resources (`status_page_resource`: `public_name`, `status`),
 * its reports (`status_report`: `title`, `report_type` manual | automatic |
 * maintenance, `starts_at`, `ends_at`, `aggregate_state`, `affected_resources`)
 * and the reports' updates (`status_update`: `message`, `published_at`,
 * `status_report_id`, `affected_resources`).
 *
 * A report is over when its `aggregate_state` is `resolved` (or `operational`):
 * a resolved report may keep `ends_at` null, so `ends_at` alone never ends an
 * incident. Better Stack has no investigating/identified/monitoring stages: an
 * update is work under way, and the update that resolves the report (every
 * resource it names back to `resolved`) is the resolution. A report whose
 * resources went down is major; any other is minor.
 */

// Ids come as strings and, inside attributes, as numbers: both read as text.
const id = z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string().min(1));
const affectedResource = z.object({ status_page_resource_id: id, status: z.string().nullish() });
const affectedList = z
  .array(affectedResource)
  .nullish()
  .transform((list) => list ?? []);

const resource = z.object({
  id,
  attributes: z.object({ public_name: z.string(), status: z.string().nullish() }),
});

const report = z.object({
  id,
  attributes: z.object({
    title: z.string(),
    report_type: z.string().nullish(),
    starts_at: feedDate.nullish(),
    ends_at: feedDate.nullish(),
    aggregate_state: z.string().nullish(),
    affected_resources: affectedList,
  }),
  relationships: z.object({ status_updates: z.object({ data: z.array(z.object({ id })).nullish() }).nullish() }).nullish(),
});

const update = z.object({
  id,
  attributes: z.object({
    message: z.string().nullish(),
    published_at: feedDate.nullish(),
    status_report_id: id.nullish(),
    affected_resources: affectedList,
  }),
});

const indexJson = z.object({
  data: z.object({ attributes: z.object({ aggregate_state: z.string() }) }),
  included: z.array(z.unknown()).nullish(),
});

type Report = z.output<typeof report>;
type Update = z.output<typeof update>;

export const betterstack = {
  kind: 'betterstack',
  documents: (url) => [`${trimSlash(url)}/index.json`],
  parse(bodies, context) {
    const page = readJson(bodies[0] ?? '', 'index.json', indexJson);
    const skipped: string[] = [];
    const ofType = (type: string) => (page.included ?? []).filter((entry) => typeOf(entry) === type);
    // Each kind of resource is read against its own schema; one the reader does not use is left alone.
    const resources = readItems(ofType('status_page_resource'), 'index.json: status_page_resource', resource, skipped);
    const reports = readItems(ofType('status_report'), 'index.json: status_report', report, skipped);
    const updates = readItems(ofType('status_update'), 'index.json: status_update', update, skipped);
    const names = new Map(resources.map((r) => [r.id, r.attributes.public_name]));
    const pageUrl = trimSlash(context.url);
    const isMaintenance = (r: Report) => word(r.attributes.report_type) === 'maintenance';
    return {
      indicator: INDICATORS[word(page.data.attributes.aggregate_state)] ?? null,
      components: resources.map((r) => ({ name: r.attributes.public_name, status: componentStatus(r.attributes.status) })),
      incidents: firstById(reports.filter((r) => !isMaintenance(r)).map((r) => toIncident(r, updatesOf(r, updates), names, pageUrl, context.now))),
      maintenances: firstById(reports.filter(isMaintenance).map((r) => toMaintenance(r, names, pageUrl, context.now))),
      skipped,
    };
  },
} satisfies FeedReader<'betterstack'>;

const INDICATORS: Record<string, ServiceStatus | undefined> = {
  operational: 'ok',
  degraded: 'minor',
  downtime: 'major',
  maintenance: 'maintenance',
};
// Better Stack's resource words in Statuspage's vocabulary; any other (`not_monitored`) is kept as written.
const COMPONENT_WORDS: Record<string, string | undefined> = {
  operational: 'operational',
  degraded: 'degraded_performance',
  downtime: 'major_outage',
  maintenance: 'under_maintenance',
};
const OVER = new Set(['resolved', 'operational']);
const IMPACT_ORDER = ['downtime', 'degraded', 'maintenance'];

function word(text: string | null | undefined): string {
  return (text ?? '').trim().toLowerCase();
}

function typeOf(entry: unknown): unknown {
  return entry !== null && typeof entry === 'object' ? (entry as { type?: unknown }).type : undefined;
}

function componentStatus(status: string | null | undefined): string {
  return COMPONENT_WORDS[word(status)] ?? status ?? 'unknown';
}

/** The report's updates, oldest first: those it links to, and those that name it. */
function updatesOf(r: Report, all: readonly Update[]): Update[] {
  const linked = new Set((r.relationships?.status_updates?.data ?? []).map((d) => d.id));
  return all
    .filter((u) => linked.has(u.id) || u.attributes.status_report_id === r.id)
    .sort((a, b) => timeOf(a.attributes.published_at) - timeOf(b.attributes.published_at));
}

function timeOf(date: Date | null | undefined): number {
  return date?.getTime() ?? Number.NEGATIVE_INFINITY;
}

function affectedNames(lists: readonly (readonly z.output<typeof affectedResource>[])[], names: ReadonlyMap<string, string>): string[] {
  return [...new Set(lists.flat().flatMap((a) => names.get(a.status_page_resource_id) ?? []))];
}

function toIncident(r: Report, updates: readonly Update[], names: ReadonlyMap<string, string>, pageUrl: string, now: Date): VendorIncident {
  const a = r.attributes;
  const resolved = OVER.has(word(a.aggregate_state));
  const dated = updates.map((u) => ({ u, at: u.attributes.published_at ?? a.starts_at ?? now }));
  const createdAt = a.starts_at ?? dated[0]?.at ?? now;
  const lastAt = dated[dated.length - 1]?.at;
  const updatedAt = lastAt !== undefined && lastAt.getTime() > createdAt.getTime() ? lastAt : createdAt;
  const states = [a.affected_resources, ...updates.map((u) => u.attributes.affected_resources)].flat().map((x) => word(x.status));
  // The worst a resource went through, so that a resolved report still says how bad it was.
  const worstState = IMPACT_ORDER.find((state) => states.includes(state) || word(a.aggregate_state) === state) ?? null;
  const severity: Severity = worstState === 'downtime' ? 'major' : 'minor';
  const list: VendorUpdate[] = dated.map(({ u, at }, index) => ({
    stage: resolvesReport(u, resolved && index === dated.length - 1) ? 'resolved' : 'investigating',
    description: (u.attributes.message ?? '').trim(),
    createdAt: at,
  }));
  return {
    id: r.id,
    title: a.title,
    severity,
    severityFromProvider: worstState ?? a.aggregate_state ?? null,
    // index.json gives a report no address of its own; the page lists it.
    url: pageUrl,
    description: list[list.length - 1]?.description ?? '',
    components: affectedNames([a.affected_resources, ...updates.map((u) => u.attributes.affected_resources)], names),
    createdAt,
    updatedAt,
    resolved,
    resolvedAt: resolved ? (a.ends_at ?? updatedAt) : null,
    updates: list,
  };
}

/** An update that sets every resource it names back to `resolved`; the last one of a resolved report, when it names none. */
function resolvesReport(u: Update, lastOfResolved: boolean): boolean {
  const named = u.attributes.affected_resources;
  return named.length > 0 ? named.every((x) => word(x.status) === 'resolved') : lastOfResolved;
}

function toMaintenance(r: Report, names: ReadonlyMap<string, string>, pageUrl: string, now: Date): VendorMaintenance {
  const a = r.attributes;
  const startsAt = a.starts_at ?? now;
  const endsAt = a.ends_at ?? null;
  const over = OVER.has(word(a.aggregate_state)) || (endsAt !== null && endsAt.getTime() <= now.getTime());
  return {
    id: r.id,
    name: a.title,
    startsAt,
    endsAt,
    status: over ? 'completed' : startsAt.getTime() <= now.getTime() ? 'in_progress' : 'scheduled',
    components: affectedNames([a.affected_resources], names),
    url: pageUrl,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
