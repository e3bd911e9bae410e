import { z } from 'zod';
import type { ResolutionStage, Severity } from '../domain/model/incident.js';
import { feedDate, firstById, innerList, lenient, readItems, readJson } from './feed-text.js';
import type { FeedReader, VendorIncident, VendorUpdate } from './vendor-snapshot.js';

const gcpUpdate = z.object({
  when: feedDate.nullish(),
  created: feedDate.nullish(),
  text: lenient(z.string()),
  status: lenient(z.string()),
});

const gcpIncident = z.object({
  id: z.string().min(1),
  external_desc: z.string(),
  begin: feedDate.nullish(),
  created: feedDate.nullish(),
  end: feedDate.nullish(),
  modified: feedDate.nullish(),
  severity: lenient(z.string()),
  uri: lenient(z.string()),
  // Only its text and time are read, and the updates list has them too.
  most_recent_update: lenient(gcpUpdate),
  updates: innerList,
  affected_products: innerList,
});

const product = z.object({ title: z.string() });

type GcpIncident = z.output<typeof gcpIncident>;
type GcpUpdate = z.output<typeof gcpUpdate>;

/**
 * Google Cloud's status `incidents.json`: every incident, open or ended,
 * without an overall status. Each incident is read on its own: one without an
 * id or a title, or with an unreadable date, is skipped and the rest is read.
 */
export const gcp = {
  kind: 'gcp',
  documents: (url) => [url],
  parse(bodies, context) {
    const list = readJson(bodies[0] ?? '', 'incidents.json', z.array(z.unknown()));
    const skipped: string[] = [];
    const incidents = readItems(list, 'incidents.json: ', gcpIncident, skipped, (incident, where) =>
      toIncident(incident, context.now, {
        updates: readItems(incident.updates, `${where}: updates`, gcpUpdate, skipped),
        products: readItems(incident.affected_products, `${where}: affected_products`, product, skipped, (p) => p.title),
      }),
    );
    return { indicator: null, components: [], incidents: firstById(incidents), maintenances: [], skipped };
  },
} satisfies FeedReader<'gcp'>;

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

function toIncident(incident: GcpIncident, now: Date, inner: { updates: GcpUpdate[]; products: string[] }): VendorIncident {
  const updates = timeline(inner.updates, now);
  const dated = incident.begin ?? incident.created ?? timeOf(inner.updates[inner.updates.length - 1]) ?? null;
  const createdAt = dated ?? now;
  const end = incident.end ?? null;
  const latest = incident.most_recent_update;
  return {
    id: incident.id,
    title: incident.external_desc,
    severity: SEVERITIES[incident.severity ?? ''] ?? 'minor',
    severityFromProvider: incident.severity ?? null,
    url: incident.uri ? `https://status.cloud.google.com/${incident.uri.replace(/^\/+/, '')}` : null,
    description: (latest?.text ?? updates[updates.length - 1]?.description ?? '').trim(),
    components: [...new Set(inner.products)],
    createdAt,
    updatedAt: incident.modified ?? latest?.when ?? updates[updates.length - 1]?.createdAt ?? createdAt,
    resolved: end !== null,
    resolvedAt: end,
    updates,
    ...(dated === null ? { undated: true } : {}),
  };
}

function timeOf(update: GcpUpdate | undefined): Date | null {
  return update?.when ?? update?.created ?? null;
}

function timeline(updates: readonly GcpUpdate[], now: Date): VendorUpdate[] {
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
