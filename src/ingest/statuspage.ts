import type { ResolutionStage, Severity } from '../domain/model/incident.js';
import type { ServiceStatus } from '../domain/model/service.js';
import { firstById, readJson } from './feed-text.js';
import { incidentsFrame, readComponents, readIncidents, readMaintenances, summaryFrame } from './statuspage-payload.js';
import type { StatuspageIncident, StatuspageIndicator, StatuspageMaintenance, StatuspageUpdate } from './statuspage-payload.js';
import type { FeedReader, VendorIncident, VendorMaintenance, VendorUpdate } from './vendor-snapshot.js';

/**
 * Atlassian Statuspage, and pages that serve its `/api/v2` (incident.io).
 * summary.json gives the status, the components, the open incidents and the
 * scheduled maintenances, upcoming and in progress alike (so
 * `scheduled-maintenances/upcoming.json` would add nothing); incidents.json
 * the recent incidents, resolved ones included.
 */
export const statuspage = {
  kind: 'statuspage',
  documents: (url) => [`${trimSlash(url)}/api/v2/summary.json`, `${trimSlash(url)}/api/v2/incidents.json`],
  parse(bodies, context) {
    const summary = readJson(bodies[0] ?? '', 'summary.json', summaryFrame);
    const list = readJson(bodies[1] ?? '', 'incidents.json', incidentsFrame);
    const skipped: string[] = [];
    const components = readComponents(summary.components, 'summary.json: components', skipped);
    const open = readIncidents(summary.incidents, 'summary.json: incidents', skipped);
    const maintenances = readMaintenances(summary.scheduled_maintenances, 'summary.json: scheduled_maintenances', skipped);
    const recent = readIncidents(list.incidents, 'incidents.json: incidents', skipped);
    const pageUrl = trimSlash(summary.page?.url || list.page?.url || context.url);
    const merged = mergeIncidents(recent, open);
    return {
      indicator: indicatorOf(INDICATORS[summary.status.indicator], open, maintenances, merged),
      components: components.filter((c) => !c.group).map((c) => ({ name: c.name, status: c.status })),
      incidents: [...merged.values()].map((incident) => toIncident(incident, pageUrl, context.now)),
      maintenances: firstById(maintenances.map((m) => toMaintenance(m, pageUrl))),
      skipped,
    };
  },
} satisfies FeedReader<'statuspage'>;

const INDICATORS: Record<StatuspageIndicator, ServiceStatus> = {
  none: 'ok',
  minor: 'minor',
  major: 'major',
  critical: 'major',
  maintenance: 'maintenance',
};
const MAINTENANCE_UNDERWAY = new Set(['in_progress', 'verifying']);
const IMPACTS: Record<string, Severity | undefined> = { none: 'minor', minor: 'minor', major: 'major', critical: 'major' };
const STAGES: Record<string, ResolutionStage | undefined> = {
  investigating: 'investigating',
  identified: 'identified',
  monitoring: 'monitoring',
  resolved: 'resolved',
  postmortem: 'resolved',
};
const RESOLVED_STATUSES = new Set(['resolved', 'postmortem']);

function indicatorOf(
  stated: ServiceStatus,
  open: readonly StatuspageIncident[],
  maintenances: readonly StatuspageMaintenance[],
  merged: ReadonlyMap<string, StatuspageIncident>,
): ServiceStatus {
  let status = stated;
  if (status === 'ok' && maintenances.some((m) => MAINTENANCE_UNDERWAY.has(m.status ?? ''))) status = 'maintenance';
  if (status !== 'maintenance') return status;
  // An incident outranks a maintenance: the page says "maintenance" while something is also broken.
  const impacts = open
    .map((listed) => merged.get(listed.id) ?? listed)
    .filter((incident) => !isResolved(incident) && incident.impact !== 'none')
    .map((incident) => IMPACTS[incident.impact ?? '']);
  if (impacts.includes('major')) return 'major';
  if (impacts.includes('minor')) return 'minor';
  return status;
}

function toMaintenance(m: StatuspageMaintenance, pageUrl: string): VendorMaintenance {
  return {
    id: m.id,
    name: m.name,
    startsAt: m.startsAt,
    endsAt: m.scheduledUntil,
    status: m.status ?? 'scheduled',
    components: componentsOf(m, [...m.updates].reverse()),
    url: m.shortlink ?? `${pageUrl}/incidents/${encodeURIComponent(m.id)}`,
  };
}

/** Both documents list open incidents; the later-updated copy is the truer one, incidents.json on a tie. */
function mergeIncidents(fromList: readonly StatuspageIncident[], fromSummary: readonly StatuspageIncident[]): Map<string, StatuspageIncident> {
  const merged = new Map<string, StatuspageIncident>();
  for (const incident of fromList) merged.set(incident.id, incident);
  for (const incident of fromSummary) {
    const known = merged.get(incident.id);
    if (known === undefined || timeOf(incident.updatedAt) > timeOf(known.updatedAt)) merged.set(incident.id, incident);
  }
  return merged;
}

function timeOf(date: Date | null | undefined): number {
  return date?.getTime() ?? Number.NEGATIVE_INFINITY;
}

function isResolved(incident: StatuspageIncident): boolean {
  return RESOLVED_STATUSES.has(incident.status ?? '') || incident.resolvedAt !== null;
}

function toIncident(incident: StatuspageIncident, pageUrl: string, now: Date): VendorIncident {
  const ordered = chronological(incident);
  const updates = timeline(ordered, now);
  const dated = incident.createdAt ?? incident.startedAt ?? ordered[0]?.at ?? incident.updatedAt;
  const createdAt = dated ?? now;
  const updatedAt = incident.updatedAt ?? ordered[ordered.length - 1]?.at ?? createdAt;
  const resolved = isResolved(incident);
  return {
    id: incident.id,
    title: incident.name,
    severity: IMPACTS[incident.impact ?? ''] ?? 'minor',
    severityFromProvider: incident.impact,
    url: incident.shortlink ?? `${pageUrl}/incidents/${encodeURIComponent(incident.id)}`,
    description: updates[updates.length - 1]?.description ?? '',
    components: componentsOf(
      incident,
      ordered.map(({ update }) => update),
    ),
    createdAt,
    updatedAt,
    resolved,
    resolvedAt: incident.resolvedAt ?? (resolved ? updatedAt : null),
    updates,
    ...(dated === null ? { undated: true } : {}),
  };
}

/**
 * The components the incident lists; else, for pages that list none there,
 * those its updates changed, in the order they were first affected.
 */
function componentsOf(incident: StatuspageIncident, oldestFirst: readonly StatuspageUpdate[]): string[] {
  return unique(incident.components.length > 0 ? incident.components : oldestFirst.flatMap((u) => u.affected));
}

/**
 * The updates oldest first, each at its displayed time (a backfilled update's
 * `created_at` is when it was typed); an update without a time takes the one
 * of the update listed before it, so that it keeps its place.
 */
function chronological(incident: StatuspageIncident): { update: StatuspageUpdate; at: Date | null }[] {
  // The API lists newest first; reversing before the stable sort keeps that order's meaning on equal times.
  const oldestFirst = [...incident.updates].reverse();
  let previous: Date | null = incident.createdAt ?? incident.startedAt;
  const timed = oldestFirst.map((update) => {
    const at = update.displayAt ?? update.createdAt ?? previous;
    previous = at;
    return { update, at };
  });
  return timed.sort((a, b) => (a.at?.getTime() ?? 0) - (b.at?.getTime() ?? 0));
}

/** A status that is not a stage (a maintenance's `scheduled`, `in_progress`, `verifying`, `completed`) keeps the stage before it. */
function timeline(ordered: readonly { update: StatuspageUpdate; at: Date | null }[], now: Date): VendorUpdate[] {
  let stage: ResolutionStage = 'investigating';
  return ordered.map(({ update, at }) => {
    stage = STAGES[update.status ?? ''] ?? stage;
    return { stage, description: update.body ?? '', createdAt: at ?? now };
  });
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
