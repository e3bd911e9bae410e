import { z } from 'zod';
import type { ResolutionStage, Severity } from '../domain/model/incident.js';
import type { ServiceStatus } from '../domain/model/service.js';
import { collapse, feedDate, firstById, innerList, lenient, readItems, readJson } from './feed-text.js';
import type { FeedReader, VendorIncident, VendorMaintenance, VendorUpdate } from './vendor-snapshot.js';

/*
 * Salesforce's Trust status API (https://api.status.salesforce.com/v1/docs/),
 * given the address of `/v1/instances/status/preview`: every Salesforce
 * instance (`NA137`, `EU48`, Commerce Cloud's `POD37`…) with its `status` and
 * the `Incidents` and `Maintenances` that touch it now. An incident is listed
 * under each instance it touches, and leaves the list once it is over (the
 * domain ends it then).
 *
 * An incident has no title or text of its own: what it is is the type of its
 * `IncidentImpacts` (`performanceDegradationAsynchronousProcessingSubset`),
 * which `/v1/localizations` names (`serviceIssue`: "Performance Degradation -
 * Asynchronous Processing") and explains (`endUserImpact`); so that document is
 * read too. Its `IncidentEvents` are the updates Salesforce posted, each with
 * its text, or a type whose localized label says the stage.
 *
 * An impact has a start and, once over, an end: the incident began at its
 * first impact and is resolved when every impact has ended. The impact's
 * `severity` (`minor`, `major`) is the incident's.
 *
 * An instance's status is `OK`, `MINOR_INCIDENT_*`, `MAJOR_INCIDENT_*` or
 * `MAINTENANCE_*`, `_CORE` or `_NONCORE`. A major incident of a non-core
 * service (Live Agent, Search…) leaves the core up: minor for Salesforce as a
 * whole, as stts reads it. The worst status of any instance is Salesforce's.
 */

const impact = z.object({
  startTime: feedDate,
  endTime: feedDate.nullish(),
  type: lenient(z.string()),
  severity: lenient(z.string()),
});

const event = z.object({
  type: lenient(z.string()),
  message: lenient(z.string()),
  createdAt: feedDate,
});

const incident = z.object({
  id: z.union([z.number(), z.string().min(1)]).transform(String),
  createdAt: feedDate.nullish(),
  updatedAt: feedDate.nullish(),
  IncidentImpacts: z.array(impact).nullish(),
  IncidentEvents: innerList,
  instanceKeys: lenient(z.array(z.string())),
});

const maintenance = z.object({
  id: z.union([z.number(), z.string().min(1)]).transform(String),
  name: z.string(),
  plannedStartTime: feedDate,
  plannedEndTime: feedDate.nullish(),
  message: lenient(z.object({ eventStatus: lenient(z.string()) })),
  MaintenanceImpacts: z.array(impact.pick({ startTime: true, endTime: true })).nullish(),
  instanceKeys: lenient(z.array(z.string())),
});

const instance = z.object({ key: z.string().min(1), status: z.string(), Incidents: innerList, Maintenances: innerList });

// Only these entries of the localizations are read; an entry of another shape names nothing.
const localization = z.object({ modelName: z.string(), modelKey: z.string(), modelAttribute: z.string(), text: z.string() });

type Incident = z.output<typeof incident>;
type Event = z.output<typeof event>;
type Names = ReadonlyMap<string, string>;

export const salesforce = {
  kind: 'salesforce',
  documents: (url) => [url, `${new URL(url).origin}/v1/localizations`],
  parse(bodies, context) {
    const instances = readJson(bodies[0] ?? '', 'instances/status/preview', z.array(z.unknown()));
    const names = namesOf(readJson(bodies[1] ?? '', 'localizations', z.array(z.unknown())));
    const skipped: string[] = [];
    const read = readItems(instances, 'instances/status/preview: ', instance, skipped, (i, where) => ({
      status: i.status,
      incidents: readItems(i.Incidents, `${where} ${i.key}: Incidents`, incident, skipped, (inc, at) =>
        toIncident(inc, readItems(inc.IncidentEvents, `${at}: IncidentEvents`, event, skipped), names, context.now),
      ),
      maintenances: readItems(i.Maintenances, `${where} ${i.key}: Maintenances`, maintenance, skipped, (m) => toMaintenance(m, context.now)),
    }));
    return {
      indicator: indicatorOf(read.map((i) => i.status)),
      // Salesforce runs well over a thousand instances; the affected ones are named on each incident.
      components: [],
      incidents: firstById(read.flatMap((i) => i.incidents)),
      maintenances: firstById(read.flatMap((i) => i.maintenances)),
      skipped,
    };
  },
} satisfies FeedReader<'salesforce'>;

function namesOf(list: readonly unknown[]): Names {
  const names = new Map<string, string>();
  for (const raw of list) {
    const entry = localization.safeParse(raw);
    if (entry.success) names.set(`${entry.data.modelName}.${entry.data.modelKey}.${entry.data.modelAttribute}`, collapse(entry.data.text));
  }
  return names;
}

const INSTANCE_STATUSES: Record<string, ServiceStatus | undefined> = {
  OK: 'ok',
  MAINTENANCE_CORE: 'maintenance',
  MAINTENANCE_NONCORE: 'maintenance',
  MINOR_INCIDENT_CORE: 'minor',
  MINOR_INCIDENT_NONCORE: 'minor',
  MAJOR_INCIDENT_CORE: 'major',
  MAJOR_INCIDENT_NONCORE: 'minor',
};
const RANK: Record<ServiceStatus, number> = { ok: 0, maintenance: 1, minor: 2, major: 3 };

/** The worst known status of any instance; when a status word is unknown and nothing known is wrong, nothing is said. */
function indicatorOf(statuses: readonly string[]): ServiceStatus | null {
  const known = statuses.map((s) => INSTANCE_STATUSES[s.trim().toUpperCase()]);
  if (known.length === 0) return null;
  const worst = known.reduce<ServiceStatus | undefined>((a, b) => (b !== undefined && (a === undefined || RANK[b] > RANK[a]) ? b : a), undefined);
  if (known.includes(undefined) && (worst === undefined || worst === 'ok')) return null;
  return worst ?? null;
}

// Event types are many (`investigatingCauseOfIssue`, `issueIsolatedDatabaseTier`…); their label says the stage.
const STAGES: Record<string, ResolutionStage | undefined> = {
  investigating: 'investigating',
  'issue isolated': 'identified',
  'third party issue isolated': 'identified',
  'implementing solution': 'identified',
  monitoring: 'monitoring',
};

function toIncident(i: Incident, events: readonly Event[], names: Names, now: Date): VendorIncident {
  const impacts = [...(i.IncidentImpacts ?? [])].sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  const latest = impacts[impacts.length - 1];
  const type = latest?.type ?? null;
  const resolved = impacts.length > 0 && impacts.every((m) => m.endTime != null);
  const resolvedAt = resolved ? latestOf(impacts.map((m) => m.endTime)) : null;
  const createdAt = impacts[0]?.startTime ?? i.createdAt ?? now;
  let stage: ResolutionStage = 'investigating';
  const updates: VendorUpdate[] = [...events]
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((e) => {
      stage = STAGES[(names.get(`incidentEventType.${e.type}.label`) ?? '').toLowerCase()] ?? stage;
      const text = e.message?.trim() || names.get(`incidentEventType.${e.type}.template`) || '';
      return { stage, description: collapse(text), createdAt: e.createdAt };
    });
  const major = impacts.some((m) => m.severity?.toLowerCase() === 'major');
  const described = type === null ? undefined : names.get(`incidentImpactType.${type}.endUserImpact`);
  return {
    id: i.id,
    title: (type === null ? undefined : names.get(`incidentImpactType.${type}.serviceIssue`)) ?? type ?? `Incident ${i.id}`,
    severity: (major ? 'major' : 'minor') satisfies Severity,
    severityFromProvider: major ? 'major' : (impacts.find((m) => m.severity)?.severity ?? null),
    // The API gives no address of the incident's page.
    url: null,
    description: updates[updates.length - 1]?.description ?? described ?? '',
    components: [...new Set(i.instanceKeys ?? [])].sort(),
    createdAt,
    updatedAt: latestOf([i.updatedAt, createdAt, resolvedAt, ...updates.map((u) => u.createdAt)]) ?? createdAt,
    resolved,
    resolvedAt,
    updates,
  };
}

/** Under way while an impact has begun and not ended, completed once every one has; before that, Salesforce's own word. */
function toMaintenance(m: z.output<typeof maintenance>, now: Date): VendorMaintenance {
  const impacts = m.MaintenanceImpacts ?? [];
  const ended = impacts.length > 0 && impacts.every((x) => x.endTime != null);
  const begun = impacts.some((x) => x.startTime.getTime() <= now.getTime());
  return {
    id: m.id,
    name: m.name.trim(),
    startsAt: m.plannedStartTime,
    endsAt: m.plannedEndTime ?? null,
    status: ended ? 'completed' : begun ? 'in_progress' : (m.message?.eventStatus ?? 'scheduled'),
    components: [...new Set(m.instanceKeys ?? [])].sort(),
    url: null,
  };
}

function latestOf(dates: readonly (Date | null | undefined)[]): Date | null {
  const known = dates.filter((d): d is Date => d instanceof Date);
  return known.length === 0 ? null : known.reduce((a, b) => (b.getTime() > a.getTime() ? b : a));
}
