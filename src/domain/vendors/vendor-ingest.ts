import type { Kysely, Selectable } from 'kysely';
import type { Database, IncidentsTable } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { applyIncidentChanges, lockScopeForMany } from '../incidents/incident-pipeline.js';
import type { IncidentDraft, ProposedChange } from '../incidents/incident-pipeline.js';
import { HISTORY_WINDOW_MS } from '../incidents/incident-service.js';
import type { DueFeed } from './vendor-feeds.js';
import { succeededRead } from './vendor-feeds.js';
import { endUserReportIncidents } from './user-reports.js';
import type { VendorIncident, VendorSnapshot } from './vendor-snapshot.js';
import { clipText } from '../clip-text.js';

/** The key of a vendor's incident: the same statusbot incident across reads. */
export const vendorIncidentKey = (serviceId: number, providerId: string): string => `vendor:${serviceId}:${providerId}`;

const ENDED_UNLISTED = 'The provider no longer lists this incident.';

/**
 * Applies one read of a vendor's feed, in one transaction: its incidents are
 * upserted by the provider's id (title, severity, timeline, components, times),
 * open ones the feed no longer lists end now, and the feed's stated status and
 * components are kept. After the first read, which is silent, every status
 * change and every new incident or update goes to the channels that follow
 * the service, through the outbox.
 */
export async function applyVendorSnapshot(
  ctx: DomainContext,
  feed: DueFeed,
  snapshot: VendorSnapshot,
  options: { validators: DueFeed['validators']; fingerprint: string; intervalMs: number },
): Promise<{ changes: number; first: boolean }> {
  const now = ctx.clock.now().getTime();
  return ctx.write(async (trx) => {
    const scope = await lockScopeForMany(trx, feed.serviceId, now);
    const state = await trx.selectFrom('vendor_feeds').select(['ingested', 'last_checked_at']).where('service_id', '=', feed.serviceId).executeTakeFirst();
    const first = !state?.ingested;
    const proposed = await proposedChanges(trx, feed.serviceId, snapshot.incidents, {
      now,
      partial: snapshot.skipped.length > 0,
      // A new incident that already ended is told of only if it ended since the last read.
      announceEndedSince: state?.last_checked_at ?? now,
    });
    // What the feed shows at its first read was so before statusbot could see it change.
    const changes = first ? proposed.map((c) => ({ ...c, seeded: true })) : proposed;
    // The status it states is part of the service's status: written before the changes are told.
    await trx
      .updateTable('vendor_feeds')
      .set({
        indicator: snapshot.indicator,
        components: JSON.stringify(snapshot.components),
        maintenances: JSON.stringify(snapshot.maintenances),
        skipped: snapshot.skipped.length > 0 ? JSON.stringify(snapshot.skipped.slice(0, 20)) : null,
        fingerprint: options.fingerprint,
        ingested: 1,
        ...succeededRead(now, options.intervalMs, options.validators),
      })
      .where('service_id', '=', feed.serviceId)
      .execute();
    if (scope) {
      const worst = snapshot.incidents.find((i) => !i.resolved);
      await applyIncidentChanges(ctx, trx, scope, changes, {
        source: 'vendor',
        now,
        cause: (after) => (after === 'ok' ? null : (worst?.title ?? null)),
        tellStatus: !first,
      });
      const providerOpen = snapshot.incidents.find((i) => !i.resolved);
      if (providerOpen) await endUserReportIncidents(ctx, trx, feed.serviceId, providerOpen.title, now);
    }
    return { changes: proposed.filter((c) => !c.quiet).length, first };
  });
}

type Stored = Selectable<IncidentsTable> & { updates: number };

async function proposedChanges(
  trx: Kysely<Database>,
  serviceId: number,
  incidents: readonly VendorIncident[],
  options: {
    now: number;
    announceEndedSince: number;
    /** The read left items out: an incident (or update) it did not list may be one it could not read, not one that ended. */
    partial: boolean;
  },
): Promise<ProposedChange[]> {
  const { now } = options;
  const stored = new Map<string, Stored>();
  const rows = await trx
    .selectFrom('incidents')
    .selectAll('incidents')
    .select((eb) =>
      eb
        .selectFrom('incident_updates')
        .select((u) => u.fn.countAll<number>().as('n'))
        .whereRef('incident_updates.incident_id', '=', 'incidents.id')
        .as('updates'),
    )
    .where('incidents.service_id', '=', serviceId)
    .where('incidents.user_generated', '=', 0)
    .where('incidents.external_key', 'like', `vendor:${serviceId}:%`)
    .execute();
  for (const r of rows) stored.set(r.external_key!, { ...r, updates: Number(r.updates ?? 0) });

  const changes: ProposedChange[] = [];
  const listed = new Set<string>();
  for (const incident of incidents) {
    const key = vendorIncidentKey(serviceId, incident.id);
    listed.add(key);
    const known = stored.get(key);
    // A new incident that ended before the 30-day window would never be shown; a known one still takes its end.
    if (!known && incident.resolved && (incident.resolvedAt ?? incident.updatedAt).getTime() < now - HISTORY_WINDOW_MS) continue;
    const values: IncidentDraft = {
      title: clipText(incident.title, 255),
      status: incident.severity,
      description: clipText(incident.description, 10_000),
      resolved: incident.resolved ? 1 : 0,
      url: incident.url,
      user_generated: 0,
      severity_from_provider: incident.severityFromProvider,
      components: JSON.stringify(incident.components),
      external_key: key,
      created_at: incident.createdAt.getTime(),
      updated_at: Math.max(incident.updatedAt.getTime(), incident.createdAt.getTime()),
      resolved_at: incident.resolved ? (incident.resolvedAt ?? incident.updatedAt).getTime() : null,
    };
    if (!known) {
      const worthAnnouncing = !incident.resolved || values.resolved_at! >= options.announceEndedSince;
      changes.push({ before: null, after: values, posted: updatesOf(incident, 0), quiet: !worthAnnouncing });
      continue;
    }
    const newUpdates = incident.updates.length > known.updates;
    if (incident.undated) keepFirstSeenTimes(values, known, newUpdates);
    if (known.updated_at === values.updated_at && known.resolved === values.resolved && !newUpdates) continue;
    const before = { row: known, updates: null };
    // The provider removed updates: the timeline is written anew.
    const rewrite = incident.updates.length < known.updates && !options.partial;
    const posted = updatesOf(incident, rewrite ? 0 : known.updates);
    // A provider's edit of an incident that is over, with nothing new to say, is kept but not told.
    const quietEdit = values.resolved === 1 && known.resolved === 1 && !newUpdates;
    changes.push({ before, after: values, posted, rewriteTimeline: rewrite, quiet: quietEdit });
  }

  for (const [key, known] of options.partial ? [] : stored) {
    if (listed.has(key) || known.resolved === 1) continue;
    const ended = { stage: 'resolved' as const, description: ENDED_UNLISTED, created_at: now };
    changes.push({
      before: { row: known, updates: null },
      after: { ...known, resolved: 1, resolved_at: now, updated_at: now, description: ENDED_UNLISTED },
      posted: [ended],
    });
  }
  return changes;
}

/**
 * An undated incident's times are those of the read: it keeps the times it was first seen with, and counts as
 * changed (at this read's time) only when its own content changes.
 */
function keepFirstSeenTimes(values: IncidentDraft, known: Stored, newUpdates: boolean): void {
  const changed = newUpdates || values.title !== known.title || values.description !== known.description || values.resolved !== known.resolved;
  values.created_at = known.created_at;
  if (!changed) values.updated_at = known.updated_at;
  if (values.resolved === 1 && known.resolved === 1) values.resolved_at = known.resolved_at;
}

const updatesOf = (incident: VendorIncident, from: number) =>
  incident.updates.slice(from).map((u) => ({ stage: u.stage, description: clipText(u.description, 10_000), created_at: u.createdAt.getTime() }));
