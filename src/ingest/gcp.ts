import { z } from 'zod';
import type { ResolutionStage, Severity } from '../domain/incidents/incident.js';
import { feedDate, firstById, readJson } from './feed-text.js';
import type { FeedReader, VendorIncident, VendorUpdate } from './vendor-snapshot.js';

const gcpUpdate = z.object({
  when: feedDate.nullish(),
  created: feedDate.nullish(),
  text: z.string().nullish(),
  status: z.string().nullish(),
});

const gcpIncident = z.object({
  id: z.string().min(1),
  external_desc: z.string(),
  begin: feedDate.nullish(),
  created: feedDate.nullish(),
  end: feedDate.nullish(),
  modified: feedDate.nullish(),
  severity: z.string().nullish(),
  uri: z.string().nullish(),
  most_recent_update: gcpUpdate.nullish(),
  updates: z.array(gcpUpdate).nullish(),
  affected_products: z.array(z.object({ title: z.string() })).nullish(),
});

type GcpIncident = z.output<typeof gcpIncident>;

/** Google Cloud's status `incidents.json`: every incident, open or ended, without an overall status. */
export const gcp: FeedReader = {
  kind: 'gcp',
  documents: (url) => [url],
  parse(bodies, context) {
    const incidents = readJson(bodies[0] ?? '', 'incidents.json', z.array(gcpIncident));
    return { indicator: null, components: [], incidents: firstById(incidents.map((i) => toIncident(i, context.now))), maintenances: [], skipped: [] };
  },
};

const SEVERITIES: Record<string, Severity | undefined> = { high: 'major', medium: 'minor', low: 'minor' };

// Google states the service's availability at each update, not the work's
// stage: any impaired state reads as investigating, AVAILABLE as resolved. An
// unknown word keeps the stage before it.
const STAGES: Record<string, ResolutionStage | undefined> = {
  SERVICE_OUTAGE: 'investigating',
  SERVICE_DISRUPTION: 'investigating',
  SERVICE_INFORMATION: 'investigating',
  AVAILABLE: 'resolved',
};

function toIncident(incident: GcpIncident, now: Date): VendorIncident {
  const updates = timeline(incident.updates ?? [], now);
  const createdAt = incident.begin ?? incident.created ?? updates[0]?.createdAt ?? now;
  const end = incident.end ?? null;
  const latest = incident.most_recent_update;
  return {
    id: incident.id,
    title: incident.external_desc,
    severity: SEVERITIES[incident.severity ?? ''] ?? 'minor',
    severityFromProvider: incident.severity ?? null,
    url: incident.uri ? `https://status.cloud.google.com/${incident.uri.replace(/^\/+/, '')}` : null,
    description: (latest?.text ?? updates[updates.length - 1]?.description ?? '').trim(),
    components: [...new Set((incident.affected_products ?? []).map((p) => p.title))],
    createdAt,
    updatedAt: incident.modified ?? latest?.when ?? updates[updates.length - 1]?.createdAt ?? createdAt,
    resolved: end !== null,
    resolvedAt: end,
    updates,
  };
}

function timeline(updates: readonly z.output<typeof gcpUpdate>[], now: Date): VendorUpdate[] {
  // Newest first in the feed; reversed so that equal times keep their order once sorted.
  const ordered = [...updates]
    .reverse()
    .map((update) => ({ update, at: update.when ?? update.created ?? now }))
    .sort((a, b) => a.at.getTime() - b.at.getTime());
  let stage: ResolutionStage = 'investigating';
  return ordered.map(({ update, at }) => {
    stage = STAGES[update.status ?? ''] ?? stage;
    return { stage, description: (update.text ?? '').trim(), createdAt: at };
  });
}
