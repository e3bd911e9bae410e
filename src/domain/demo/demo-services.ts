import type { Kysely } from 'kysely';
import type { Database, DemoBehaviour } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import type { Severity } from '../model/incident.js';
import { applyIncidentChanges, lockScopeForMany } from '../incidents/incident-pipeline.js';
import type { ProposedChange } from '../incidents/incident-pipeline.js';
import { statusOf } from '../services/service-status.js';
import { DEMO_PERIOD_MS, OUTAGE_OVER, cycleSeverity, outageDescription, outageTitle, periodAt } from '../model/demo-cycle.js';

/** How far back a process that was down catches up on missed periods (30 days). */
const MAX_CATCH_UP_PERIODS = (30 * 86_400_000) / DEMO_PERIOD_MS;
/** How far ahead outages are written (a day): reads stay right that long without a run of the demo job. */
const AHEAD_PERIODS = 86_400_000 / DEMO_PERIOD_MS;

export interface DemoServiceSpec {
  /** Fixed on every install, at the start of the built-in catalog's range (see services/service-ids.ts). */
  id: number;
  urlname: string;
  name: string;
  demo: DemoBehaviour;
}

export const DEMO_SERVICES: readonly DemoServiceSpec[] = [
  { id: 100_001, urlname: 'demo-service', name: 'Demo Service', demo: 'cycle' },
  { id: 100_002, urlname: 'demo-service-ok', name: 'Demo Service (always ok)', demo: 'ok' },
  { id: 100_003, urlname: 'demo-service-minor', name: 'Demo Service (minor outage)', demo: 'minor' },
  { id: 100_004, urlname: 'demo-service-major', name: 'Demo Service (major outage)', demo: 'major' },
];

/** An incident this sync wrote: `opened` (a standing one, or a cycle outage, also ahead of its period) or `resolved`. */
export interface DemoChange {
  serviceId: number;
  incidentId: number;
  change: 'opened' | 'resolved';
}

/**
 * Brings the demo services' incidents up to the clock and a day ahead: one
 * incident per outage period of `demo-service`, carrying its period's end and
 * resolved at it once the period is over, and one standing incident each on
 * `demo-service-minor` and `demo-service-major`; followers of a demo service
 * hear of each change of its status once. Run by the demo job and at start;
 * reads never call it (see demo-view.ts). Idempotent, also across processes
 * (incidents carry a unique external key).
 */
export async function syncDemoServices(ctx: DomainContext): Promise<DemoChange[]> {
  const now = ctx.clock.now().getTime();
  const period = periodAt(now);
  if (ctx.processState.demoPeriod === period) return [];
  const changes = await ctx.write(async (trx) => {
    const services = await trx.selectFrom('services').select(['id', 'urlname', 'name', 'demo']).where('demo', 'is not', null).execute();
    const found: DemoChange[] = [];
    for (const service of services) {
      const scope = await lockScopeForMany(trx, service.id, now);
      if (!scope) continue;
      const synced = await syncedPeriod(trx, service.urlname);
      // Followers last heard of the status as it was at the previous sync; reads have shown the cycle move on since.
      const before = await statusOf(trx, service.id, synced === null ? now : synced * DEMO_PERIOD_MS);
      let changes: ProposedChange[] = [];
      if (service.demo === 'minor' || service.demo === 'major') {
        const key = `${service.urlname}:standing`;
        const exists = await trx.selectFrom('incidents').select('id').where('external_key', '=', key).executeTakeFirst();
        if (!exists) changes = [outage(key, service.demo, { at: now, until: null })];
      } else if (service.demo === 'cycle') {
        changes = await syncCycle(trx, service.id, service.urlname, synced, period);
      }
      const made = await applyIncidentChanges(ctx, trx, scope, changes, {
        source: 'demo',
        now,
        statusToldBefore: before,
        cause: (after) => (after === 'ok' ? OUTAGE_OVER : `Demo ${after} outage`),
      });
      for (const change of made) {
        found.push({ serviceId: service.id, incidentId: change.incident.id, change: change.event === 'resolved' ? 'resolved' : 'opened' });
      }
    }
    return found;
  });
  ctx.processState.demoPeriod = period;
  return changes;
}

const periodKey = (urlname: string) => `demo:${urlname}:period`;

/** The period the last sync of a cycling service ran in; null before the first. */
async function syncedPeriod(trx: Kysely<Database>, urlname: string): Promise<number | null> {
  const meta = await trx.selectFrom('meta').select('value').where('key', '=', periodKey(urlname)).executeTakeFirst();
  return meta ? Number(meta.value) : null;
}

/**
 * The outages of a cycling service from the period after the last sync to a
 * day ahead, and the ends of those whose period is over (resolved at its end,
 * as reads have shown them since).
 */
async function syncCycle(trx: Kysely<Database>, serviceId: number, urlname: string, synced: number | null, period: number): Promise<ProposedChange[]> {
  const changes: ProposedChange[] = [];
  const from = Math.max(synced === null ? period : synced + 1, period - MAX_CATCH_UP_PERIODS);
  const until = period + AHEAD_PERIODS;
  const written = await trx
    .selectFrom('incidents')
    .select('external_key')
    .where('service_id', '=', serviceId)
    .where('created_at', '>=', from * DEMO_PERIOD_MS)
    .where('created_at', '<=', until * DEMO_PERIOD_MS)
    .execute();
  const keys = new Set(written.map((row) => row.external_key));
  for (let k = from; k <= until; k++) {
    const severity = cycleSeverity(k);
    const key = `${urlname}:${k}`;
    if (!severity || keys.has(key)) continue;
    changes.push(outage(key, severity, { at: k * DEMO_PERIOD_MS, until: (k + 1) * DEMO_PERIOD_MS }));
  }

  const over = await trx
    .selectFrom('incidents')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('resolved', '=', 0)
    .where('created_at', '<', period * DEMO_PERIOD_MS)
    .execute();
  for (const row of over) {
    const at = (periodAt(row.created_at) + 1) * DEMO_PERIOD_MS;
    changes.push({
      before: { row, updates: null },
      after: { ...row, resolved: 1, resolved_at: at, updated_at: at, description: OUTAGE_OVER },
      posted: [{ stage: 'resolved', description: OUTAGE_OVER, created_at: at }],
      seeded: true,
    });
  }

  await trx
    .insertInto('meta')
    .values({ key: periodKey(urlname), value: String(period) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(period) }))
    .execute();
  return changes;
}

/**
 * An outage, open from `at` (`until`: the end of its period, for a cycle
 * outage); written ahead, so told to nobody (followers hear of the status move).
 */
function outage(externalKey: string, severity: Severity, span: { at: number; until: number | null }): ProposedChange {
  const description = outageDescription(severity);
  return {
    before: null,
    after: {
      title: outageTitle(severity),
      status: severity,
      description,
      resolved: 0,
      url: null,
      user_generated: 0,
      severity_from_provider: severity,
      components: '[]',
      external_key: externalKey,
      created_at: span.at,
      updated_at: span.at,
      resolved_at: span.until,
    },
    posted: [{ stage: 'investigating', description, created_at: span.at }],
    seeded: true,
  };
}
