import type { Kysely } from 'kysely';
import type { Database, DemoBehaviour } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import type { Severity } from '../incidents/incident.js';
import { enqueueStatusChange } from '../notifications/channel-outbox.js';
import { statusOf } from '../services/service-status.js';

/** `demo-service` changes state at every 5-minute boundary of the clock. */
export const DEMO_PERIOD_MS = 5 * 60_000;
/** How far back a process that was down catches up on missed periods (30 days). */
const MAX_CATCH_UP_PERIODS = (30 * 86_400_000) / DEMO_PERIOD_MS;

export interface DemoServiceSpec {
  urlname: string;
  name: string;
  demo: DemoBehaviour;
}

export const DEMO_SERVICES: readonly DemoServiceSpec[] = [
  { urlname: 'demo-service', name: 'Demo Service', demo: 'cycle' },
  { urlname: 'demo-service-ok', name: 'Demo Service (always ok)', demo: 'ok' },
  { urlname: 'demo-service-minor', name: 'Demo Service (minor outage)', demo: 'minor' },
  { urlname: 'demo-service-major', name: 'Demo Service (major outage)', demo: 'major' },
];

/**
 * Period k of the cycle: even periods are `ok`; odd ones are outages,
 * alternating `minor` (k ≡ 1 mod 4) and `major` (k ≡ 3 mod 4).
 */
export function cycleSeverity(period: number): Severity | null {
  const r = ((period % 4) + 4) % 4;
  if (r === 1) return 'minor';
  if (r === 3) return 'major';
  return null;
}

export const periodAt = (ms: number): number => Math.floor(ms / DEMO_PERIOD_MS);

export interface DemoChange {
  serviceId: number;
  incidentId: number;
  change: 'opened' | 'resolved';
}

/**
 * Brings the demo services' incidents up to the clock: one incident per outage
 * period of `demo-service` (resolved when its period ends), and one standing
 * incident each on `demo-service-minor` and `demo-service-major`. Idempotent,
 * also across processes (incidents carry a unique external key).
 */
export async function syncDemoServices(ctx: DomainContext): Promise<DemoChange[]> {
  const now = ctx.clock.now().getTime();
  const period = periodAt(now);
  if (ctx.memo.demoPeriod === period) return [];
  const changes = await ctx.write(async (trx) => {
    const services = await trx
      .selectFrom('services')
      .select(['id', 'urlname', 'name', 'demo'])
      .where('demo', 'is not', null)
      .execute();
    const found: DemoChange[] = [];
    for (const service of services) {
      const before = await statusOf(trx, service.id, now);
      if (service.demo === 'minor' || service.demo === 'major') {
        const key = `${service.urlname}:standing`;
        const id = await openDemoIncident(trx, service.id, key, service.demo, now);
        if (id !== null) found.push({ serviceId: service.id, incidentId: id, change: 'opened' });
      } else if (service.demo === 'cycle') {
        found.push(...(await syncCycle(trx, service.id, service.urlname, period)));
      }
      // Channels following a demo service hear of each change of its status, once.
      const after = await statusOf(trx, service.id, now);
      await enqueueStatusChange(trx, {
        service: { id: service.id, name: service.name, urlname: service.urlname },
        publicUrl: ctx.publicUrl,
        from: before,
        to: after,
        cause: after === 'ok' ? 'The demo outage is over.' : `Demo ${after} outage`,
        now,
      });
    }
    return found;
  });
  ctx.memo.demoPeriod = period;
  return changes;
}

async function syncCycle(trx: Kysely<Database>, serviceId: number, urlname: string, period: number): Promise<DemoChange[]> {
  const metaKey = `demo:${urlname}:period`;
  const meta = await trx.selectFrom('meta').select('value').where('key', '=', metaKey).executeTakeFirst();
  const from = Math.max(meta ? Number(meta.value) + 1 : period, period - MAX_CATCH_UP_PERIODS);
  const changes: DemoChange[] = [];

  // Outages whose period has ended are resolved at the period's end.
  const open = await trx
    .selectFrom('incidents')
    .select(['id', 'created_at'])
    .where('service_id', '=', serviceId)
    .where('resolved', '=', 0)
    .where('created_at', '<', period * DEMO_PERIOD_MS)
    .execute();
  for (const incident of open) {
    await resolveDemoIncident(trx, incident.id, (periodAt(incident.created_at) + 1) * DEMO_PERIOD_MS);
    changes.push({ serviceId, incidentId: incident.id, change: 'resolved' });
  }

  for (let k = from; k <= period; k++) {
    const severity = cycleSeverity(k);
    if (!severity) continue;
    const id = await openDemoIncident(trx, serviceId, `${urlname}:${k}`, severity, k * DEMO_PERIOD_MS);
    if (id === null) continue;
    if (k < period) {
      await resolveDemoIncident(trx, id, (k + 1) * DEMO_PERIOD_MS);
    } else {
      changes.push({ serviceId, incidentId: id, change: 'opened' });
    }
  }
  await trx
    .insertInto('meta')
    .values({ key: metaKey, value: String(period) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(period) }))
    .execute();
  return changes;
}

/** Inserts the incident unless its key exists; returns the new id, or null when it was there already. */
async function openDemoIncident(
  trx: Kysely<Database>,
  serviceId: number,
  externalKey: string,
  severity: Severity,
  at: number,
): Promise<number | null> {
  const existing = await trx.selectFrom('incidents').select('id').where('external_key', '=', externalKey).executeTakeFirst();
  if (existing) return null;
  const description = `The demo service is in a ${severity} outage.`;
  const inserted = await trx
    .insertInto('incidents')
    .values({
      service_id: serviceId,
      title: `Demo ${severity} outage`,
      status: severity,
      description,
      resolved: 0,
      url: null,
      severity_from_provider: severity,
      external_key: externalKey,
      created_at: at,
      updated_at: at,
      resolved_at: null,
    })
    .onConflict((oc) => oc.column('external_key').where('external_key', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return null;
  await trx
    .insertInto('incident_updates')
    .values({ incident_id: inserted.id, stage: 'investigating', description, created_at: at })
    .execute();
  return inserted.id;
}

async function resolveDemoIncident(trx: Kysely<Database>, id: number, at: number): Promise<void> {
  const description = 'The demo outage is over.';
  await trx
    .updateTable('incidents')
    .set({ resolved: 1, resolved_at: at, updated_at: at, description })
    .where('id', '=', id)
    .execute();
  await trx.insertInto('incident_updates').values({ incident_id: id, stage: 'resolved', description, created_at: at }).execute();
}
