import type { ResolutionStage, Severity } from '../domain/incidents/incident.js';
import type { ServiceStatus } from '../domain/services/service.js';
import { firstById, readJson } from './feed-text.js';
import { statuspageIncidents, statuspageSummary } from './statuspage-payload.js';
import type { StatuspageIncident, StatuspageSummary } from './statuspage-payload.js';
import type { FeedReader, VendorIncident, VendorMaintenance, VendorUpdate } from './vendor-snapshot.js';

/** Atlassian Statuspage, and pages that serve its `/api/v2` (incident.io). */
export const statuspage: FeedReader = {
  kind: 'statuspage',
  documents: (url) => [`${trimSlash(url)}/api/v2/summary.json`, `${trimSlash(url)}/api/v2/incidents.json`],
  parse(bodies, context) {
    const summary = readJson(bodies[0] ?? '', 'summary.json', statuspageSummary);
    const list = readJson(bodies[1] ?? '', 'incidents.json', statuspageIncidents);
    const pageUrl = trimSlash(summary.page?.url ?? list.page?.url ?? context.url);
    const merged = mergeIncidents(list.incidents, summary.incidents);
    return {
      indicator: indicatorOf(summary, merged),
      components: summary.components.filter((c) => c.group !== true).map((c) => ({ name: c.name, status: c.status })),
      incidents: [...merged.values()].map((incident) => toIncident(incident, pageUrl, context.now)),
      maintenances: firstById(summary.scheduled_maintenances.map((m): VendorMaintenance => ({
        id: m.id,
        name: m.name,
        startsAt: m.scheduled_for ?? m.started_at ?? m.created_at ?? context.now,
        endsAt: m.scheduled_until ?? null,
        status: m.status ?? 'scheduled',
        components: unique(m.components.map((c) => c.name)),
        url: m.shortlink || `${pageUrl}/incidents/${encodeURIComponent(m.id)}`,
      }))),
      skipped: [],
    };
  },
};

const INDICATORS: Record<StatuspageSummary['status']['indicator'], ServiceStatus> = {
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

function indicatorOf(summary: StatuspageSummary, merged: ReadonlyMap<string, StatuspageIncident>): ServiceStatus {
  let status = INDICATORS[summary.status.indicator];
  if (status === 'ok' && summary.scheduled_maintenances.some((m) => MAINTENANCE_UNDERWAY.has(m.status ?? ''))) {
    status = 'maintenance';
  }
  if (status !== 'maintenance') return status;
  // An incident outranks a maintenance: the page says "maintenance" while something is also broken.
  const impacts = summary.incidents
    .map((listed) => merged.get(listed.id) ?? listed)
    .filter((incident) => !isResolved(incident) && incident.impact !== 'none')
    .map((incident) => IMPACTS[incident.impact ?? '']);
  if (impacts.includes('major')) return 'major';
  if (impacts.includes('minor')) return 'minor';
  return status;
}

/** Both documents list open incidents; the later-updated copy is the truer one, incidents.json on a tie. */
function mergeIncidents(
  fromList: readonly StatuspageIncident[],
  fromSummary: readonly StatuspageIncident[],
): Map<string, StatuspageIncident> {
  const merged = new Map<string, StatuspageIncident>();
  for (const incident of fromList) merged.set(incident.id, incident);
  for (const incident of fromSummary) {
    const known = merged.get(incident.id);
    if (known === undefined || timeOf(incident.updated_at) > timeOf(known.updated_at)) merged.set(incident.id, incident);
  }
  return merged;
}

function timeOf(date: Date | null | undefined): number {
  return date?.getTime() ?? Number.NEGATIVE_INFINITY;
}

function isResolved(incident: StatuspageIncident): boolean {
  return RESOLVED_STATUSES.has(incident.status ?? '') || (incident.resolved_at ?? null) !== null;
}

function toIncident(incident: StatuspageIncident, pageUrl: string, now: Date): VendorIncident {
  const ordered = chronological(incident, now);
  const updates = timeline(ordered);
  const createdAt = incident.created_at ?? incident.started_at ?? updates[0]?.createdAt ?? incident.updated_at ?? now;
  const updatedAt = incident.updated_at ?? updates[updates.length - 1]?.createdAt ?? createdAt;
  const resolved = isResolved(incident);
  const named = incident.components.map((c) => c.name);
  const affected = ordered.flatMap(({ update }) => update.affected_components.map((c) => c.name));
  return {
    id: incident.id,
    title: incident.name,
    severity: IMPACTS[incident.impact ?? ''] ?? 'minor',
    severityFromProvider: incident.impact ?? null,
    url: incident.shortlink || `${pageUrl}/incidents/${encodeURIComponent(incident.id)}`,
    description: updates[updates.length - 1]?.description ?? '',
    components: unique(named.length > 0 ? named : affected),
    createdAt,
    updatedAt,
    resolved,
    resolvedAt: incident.resolved_at ?? (resolved ? updatedAt : null),
    updates,
  };
}

type IncidentUpdate = StatuspageIncident['incident_updates'][number];

/** The updates oldest first, each at its displayed time (a backfilled update's `created_at` is when it was typed). */
function chronological(incident: StatuspageIncident, now: Date): { update: IncidentUpdate; at: Date }[] {
  const fallback = incident.updated_at ?? incident.created_at ?? now;
  // The API lists newest first; reversing before the stable sort keeps that order's meaning on equal times.
  return [...incident.incident_updates]
    .reverse()
    .map((update) => ({ update, at: update.display_at ?? update.created_at ?? fallback }))
    .sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A status that is not a stage (a maintenance's `scheduled`, `in_progress`, `verifying`, `completed`) keeps the stage before it. */
function timeline(ordered: readonly { update: IncidentUpdate; at: Date }[]): VendorUpdate[] {
  let stage: ResolutionStage = 'investigating';
  return ordered.map(({ update, at }) => {
    stage = STAGES[update.status ?? ''] ?? stage;
    return { stage, description: update.body ?? '', createdAt: at };
  });
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
