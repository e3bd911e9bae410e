import { lockServiceForChange } from '../../db/locks.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { findIncidentRow, loadIncident } from '../incidents/incident-repository.js';
import type { IncidentEvent } from '../incidents/incident.js';
import { HISTORY_WINDOW_MS } from '../incidents/incident-service.js';
import { enqueueServiceIncidentAnnouncements, enqueueStatusChange } from '../notifications/channel-outbox.js';
import { statusOf } from '../services/service-status.js';
import type { DueFeed } from './vendor-feeds.js';
import { succeededRead } from './vendor-feeds.js';
import { endUserReportIncidents } from './user-reports.js';
import type { VendorIncident, VendorSnapshot } from './vendor-snapshot.js';

/** The key of a vendor's incident: the same statusbot incident across reads. */
export const vendorIncidentKey = (serviceId: number, providerId: string): string => `vendor:${serviceId}:${providerId}`;

const ENDED_UNLISTED = 'The provider no longer lists this incident.';

interface Change {
  incidentId: number;
  event: IncidentEvent;
  /** A new update was posted (the message gets a reply). */
  update: boolean;
}

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
    await lockServiceForChange(trx, feed.serviceId);
    const state = await trx.selectFrom('vendor_feeds').select(['ingested', 'last_checked_at']).where('service_id', '=', feed.serviceId).executeTakeFirst();
    const first = !state?.ingested;
    const before = await statusOf(trx, feed.serviceId, now);
    const changes = await upsertIncidents(trx, feed.serviceId, snapshot.incidents, {
      now,
      partial: snapshot.skipped.length > 0,
      // A new incident that already ended is told of only if it ended since the last read.
      announceEndedSince: state?.last_checked_at ?? now,
    });
    const providerOpen = snapshot.incidents.find((i) => !i.resolved);
    if (providerOpen) await endUserReportIncidents(ctx, trx, feed.serviceId, providerOpen.title, now);
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
    if (first) return { changes: changes.length, first };

    for (const change of changes) {
      const row = await findIncidentRow(trx, change.incidentId, now);
      if (!row) continue;
      const incident = await loadIncident(ctx, trx, row);
      await enqueueServiceIncidentAnnouncements(trx, {
        event: change.event,
        incident,
        update: change.update,
        publicUrl: ctx.publicUrl,
        now,
        source: 'vendor',
      });
    }
    const after = await statusOf(trx, feed.serviceId, now);
    const worst = snapshot.incidents.find((i) => !i.resolved);
    await enqueueStatusChange(trx, {
      service: { id: feed.serviceId, name: feed.name, urlname: feed.urlname },
      publicUrl: ctx.publicUrl,
      from: before,
      to: after,
      cause: after === 'ok' ? null : (worst?.title ?? null),
      now,
    });
    return { changes: changes.length, first };
  });
}

type Stored = {
  id: number;
  external_key: string | null;
  resolved: number;
  updated_at: number;
  created_at: number;
  resolved_at: number | null;
  title: string;
  description: string;
  updates: number;
};

async function upsertIncidents(
  trx: Kysely<Database>,
  serviceId: number,
  incidents: readonly VendorIncident[],
  options: {
    now: number;
    announceEndedSince: number;
    /** The read left items out: an incident (or update) it did not list may be one it could not read, not one that ended. */
    partial: boolean;
  },
): Promise<Change[]> {
  const { now } = options;
  const stored = new Map<string, Stored>();
  const rows = await trx
    .selectFrom('incidents')
    .select((eb) => [
      'incidents.id',
      'incidents.external_key',
      'incidents.resolved',
      'incidents.updated_at',
      'incidents.created_at',
      'incidents.resolved_at',
      'incidents.title',
      'incidents.description',
      eb
        .selectFrom('incident_updates')
        .select((u) => u.fn.countAll<number>().as('n'))
        .whereRef('incident_updates.incident_id', '=', 'incidents.id')
        .as('updates'),
    ])
    .where('incidents.service_id', '=', serviceId)
    .where('incidents.user_generated', '=', 0)
    .where('incidents.external_key', 'like', `vendor:${serviceId}:%`)
    .execute();
  for (const r of rows) stored.set(r.external_key!, { ...r, updates: Number(r.updates ?? 0) });

  const changes: Change[] = [];
  const listed = new Set<string>();
  for (const incident of incidents) {
    const key = vendorIncidentKey(serviceId, incident.id);
    listed.add(key);
    const known = stored.get(key);
    // A new incident that ended before the 30-day window would never be shown; a known one still takes its end.
    if (!known && incident.resolved && (incident.resolvedAt ?? incident.updatedAt).getTime() < now - HISTORY_WINDOW_MS) continue;
    const values = {
      title: incident.title.slice(0, 255),
      status: incident.severity,
      description: incident.description.slice(0, 10_000),
      resolved: incident.resolved ? 1 : 0,
      url: incident.url,
      severity_from_provider: incident.severityFromProvider,
      components: JSON.stringify(incident.components),
      created_at: incident.createdAt.getTime(),
      updated_at: Math.max(incident.updatedAt.getTime(), incident.createdAt.getTime()),
      resolved_at: incident.resolved ? (incident.resolvedAt ?? incident.updatedAt).getTime() : null,
    };
    if (!known) {
      const { id } = await trx
        .insertInto('incidents')
        .values({ service_id: serviceId, external_key: key, user_generated: 0, ...values })
        .returning('id')
        .executeTakeFirstOrThrow();
      await insertUpdates(trx, id, incident, 0);
      if (!incident.resolved || values.resolved_at! >= options.announceEndedSince) {
        changes.push({ incidentId: id, event: 'created', update: incident.updates.length > 0 });
      }
      continue;
    }
    const newUpdates = incident.updates.length > known.updates;
    if (incident.undated) keepFirstSeenTimes(values, known, newUpdates);
    if (known.updated_at === values.updated_at && known.resolved === values.resolved && !newUpdates) continue;
    await trx.updateTable('incidents').set(values).where('id', '=', known.id).execute();
    if (incident.updates.length < known.updates && !options.partial) {
      // The provider removed updates: the timeline is written anew.
      await trx.deleteFrom('incident_updates').where('incident_id', '=', known.id).execute();
      await insertUpdates(trx, known.id, incident, 0);
    } else {
      await insertUpdates(trx, known.id, incident, known.updates);
    }
    const event: IncidentEvent =
      values.resolved === 1 && known.resolved === 0 ? 'resolved' : values.resolved === 0 && known.resolved === 1 ? 'reopened' : 'updated';
    // A provider's edit of an incident that is over, with nothing new to say, is kept but not told.
    if (event === 'updated' && values.resolved === 1 && !newUpdates) continue;
    changes.push({ incidentId: known.id, event, update: newUpdates });
  }

  for (const [key, known] of options.partial ? [] : stored) {
    if (listed.has(key) || known.resolved === 1) continue;
    await trx
      .updateTable('incidents')
      .set({ resolved: 1, resolved_at: now, updated_at: now, description: ENDED_UNLISTED })
      .where('id', '=', known.id)
      .execute();
    await trx.insertInto('incident_updates').values({ incident_id: known.id, stage: 'resolved', description: ENDED_UNLISTED, created_at: now }).execute();
    changes.push({ incidentId: known.id, event: 'resolved', update: true });
  }
  return changes;
}

/**
 * An undated incident's times are those of the read: it keeps the times it was first seen with, and counts as
 * changed (at this read's time) only when its own content changes.
 */
function keepFirstSeenTimes(
  values: { title: string; description: string; resolved: number; created_at: number; updated_at: number; resolved_at: number | null },
  known: Stored,
  newUpdates: boolean,
): void {
  const changed = newUpdates || values.title !== known.title || values.description !== known.description || values.resolved !== known.resolved;
  values.created_at = known.created_at;
  if (!changed) values.updated_at = known.updated_at;
  if (values.resolved === 1 && known.resolved === 1) values.resolved_at = known.resolved_at;
}

async function insertUpdates(trx: Kysely<Database>, incidentId: number, incident: VendorIncident, from: number): Promise<void> {
  const fresh = incident.updates.slice(from);
  if (fresh.length === 0) return;
  await trx
    .insertInto('incident_updates')
    .values(fresh.map((u) => ({ incident_id: incidentId, stage: u.stage, description: u.description.slice(0, 10_000), created_at: u.createdAt.getTime() })))
    .execute();
}
