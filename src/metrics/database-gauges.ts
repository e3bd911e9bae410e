import type { ExpressionBuilder } from 'kysely';
import { sql } from 'kysely';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Logger } from '../infrastructure/logger.js';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { CHAT_PLATFORMS } from '../domain/model/channel.js';
import { EMAIL_STREAM_PREFIX } from '../domain/notifications/email-notifications.js';
import { NOTIFY_KINDS } from '../domain/notifications/notify-destination.js';
import { watched } from '../domain/vendors/vendor-feeds.js';
import { listAgents } from '../domain/companies/agent-keys.js';
import { SERVER_REGIONS, regionReach } from '../domain/companies/region-reach.js';

export interface DatabaseGaugesOptions {
  registry: Registry;
  db: Db;
  now: () => Date;
  logger: Logger;
}

/**
 * Destinations by the start of their streams' names. Webhook streams are
 * named after their subscriber (`subscriber:{id}`); the kind says `webhook`,
 * as the publisher does in statusbot_deliveries_total. Pagers and chat
 * destinations (`pagerduty:3`) are each a kind of their own.
 */
const DESTINATIONS = [
  { kind: 'webhook', prefix: 'subscriber:' },
  { kind: 'email', prefix: EMAIL_STREAM_PREFIX },
  ...CHAT_PLATFORMS.map((platform) => ({ kind: platform, prefix: `${platform}:` })),
  ...NOTIFY_KINDS.map((kind) => ({ kind, prefix: `${kind}:` })),
] as const;
/** Streams no publisher takes (a destination kind this version does not know). */
const OTHER_KIND = 'other';
/** Every kind, shown at 0 while nothing of it waits: an alert on a series that is absent never fires. */
const KINDS = [...DESTINATIONS.map((d) => d.kind), OTHER_KIND];

function kindOf(eb: ExpressionBuilder<Database, 'outbox'>) {
  const [first, ...rest] = DESTINATIONS;
  let kind = eb.case().when('stream', 'like', `${first.prefix}%`).then(sql.lit<string>(first.kind));
  for (const d of rest) kind = kind.when('stream', 'like', `${d.prefix}%`).then(sql.lit<string>(d.kind));
  return kind.else(sql.lit<string>(OTHER_KIND)).end();
}

type GaugeMaker = <L extends string>(name: string, help: string, labelNames: readonly L[], read: (g: Gauge<L>) => Promise<void>) => Gauge<L>;

/** Gauges of `registry` set at each scrape by `read`; a failed read leaves the gauge empty for that scrape, with a warning. */
function gaugesOf(registry: Registry, logger: Logger): GaugeMaker {
  return <L extends string>(name: string, help: string, labelNames: readonly L[], read: (g: Gauge<L>) => Promise<void>): Gauge<L> =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        try {
          await read(this);
        } catch (error) {
          logger.warn(`metric ${name} could not be read from the database`, { reason: error instanceof Error ? error.message : String(error) });
        }
      },
    });
}

/** A read that several gauges of one scrape show: the first collect starts it, the others share it. */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= read().finally(() => {
      pending = null;
    }));
}

async function readOutbox(db: Db): Promise<Map<string, { pending: number; oldest: number }>> {
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('outbox')
        .select((o) => [kindOf(o).as('kind'), 'created_at'])
        .where('state', '=', 'pending')
        .as('p'),
    )
    .select((eb) => ['p.kind', eb.fn.countAll<number>().as('pending'), eb.fn.min('p.created_at').as('oldest')])
    .groupBy('p.kind')
    .execute();
  const byKind = new Map<string, { pending: number; oldest: number }>(KINDS.map((kind) => [kind, { pending: 0, oldest: Number.NaN }]));
  for (const r of rows) byKind.set(r.kind, { pending: Number(r.pending), oldest: Number(r.oldest) });
  return byKind;
}

function registerOutboxGauges(gauge: GaugeMaker, db: Db, now: () => Date): void {
  // Both outbox gauges come from one query per scrape.
  const outbox = sharedRead(() => readOutbox(db));
  gauge('statusbot_outbox_pending', 'Outbox rows waiting for delivery, by destination kind.', ['kind'], async (g) => {
    for (const [kind, { pending }] of await outbox()) g.set({ kind }, pending);
  });
  gauge(
    'statusbot_outbox_oldest_pending_age_seconds',
    'Age of the oldest outbox row waiting for delivery, by destination kind; 0 when none waits.',
    ['kind'],
    async (g) => {
      const at = now().getTime();
      for (const [kind, { pending, oldest }] of await outbox()) g.set({ kind }, pending > 0 ? Math.max(0, (at - oldest) / 1000) : 0);
    },
  );
}

function registerAgentGauges(gauge: GaugeMaker, db: Db, now: () => Date): void {
  // The agents, read once per scrape for the three gauges that show them.
  const listed = sharedRead(() => listAgents({ db, clock: { now } }));
  // By region, as a quorum counts them: a region's latest report, and stale only when every agent of that region is.
  async function agents() {
    const at = now().getTime();
    const byRegion = new Map<string, { age: number; stale: boolean }>();
    for (const a of await listed()) {
      if (a.revokedAt) continue;
      const age = a.lastReportAt ? Math.max(0, (at - a.lastReportAt.getTime()) / 1000) : Number.POSITIVE_INFINITY;
      const seen = byRegion.get(a.region);
      byRegion.set(a.region, { age: Math.min(age, seen?.age ?? age), stale: a.stale && (seen?.stale ?? true) });
    }
    return byRegion;
  }
  gauge(
    'statusbot_agent_last_report_seconds',
    "Seconds since a probe agent of the region last reported; +Inf when none has. Revoked agents' tokens are left out.",
    ['region'],
    async (g) => {
      for (const [region, { age }] of await agents()) g.set({ region }, age);
    },
  );
  gauge(
    'statusbot_agent_stale',
    '1 when no probe agent of the region reported within two intervals (its results count toward no quorum), else 0.',
    ['region'],
    async (g) => {
      for (const [region, { stale }] of await agents()) g.set({ region }, stale ? 1 : 0);
    },
  );
  gauge(
    'statusbot_region_quorum_out_of_reach',
    "1 when fewer regions report for the company (this server's and its live agents') than its quorum, so that its monitors cannot go down, else 0. Companies with a quorum of 1 are left out.",
    ['company'],
    async (g) => {
      for (const r of await regionReach({ db, clock: { now } }, undefined, await listed())) {
        if (r.quorum > 1) g.set({ company: r.company }, SERVER_REGIONS + r.liveRegions.length < r.quorum ? 1 : 0);
      }
    },
  );
}

/**
 * Gauges read from the database at scrape time, so that every replica
 * reports what the database holds, not what it happens to have seen. A
 * failed read leaves the gauge empty for that scrape rather than failing the
 * whole scrape (the process metrics are still worth having).
 */
export function registerDatabaseGauges(options: DatabaseGaugesOptions): void {
  const { registry, db, now, logger } = options;
  const gauge = gaugesOf(registry, logger);
  registerOutboxGauges(gauge, db, now);

  gauge('statusbot_monitors_down', 'Custom monitors whose status is down.', [], async (g) => {
    const row = await db
      .selectFrom('custom_monitors')
      .select((eb) => eb.fn.countAll<number>().as('down'))
      .where('status', '=', 'down')
      .executeTakeFirstOrThrow();
    g.set(Number(row.down));
  });

  gauge(
    'statusbot_feed_staleness_seconds',
    'Seconds since each watched vendor feed was last read successfully; +Inf when it never was.',
    ['feed'],
    async (g) => {
      const at = now().getTime();
      const rows = await db
        .selectFrom('vendor_feeds')
        .innerJoin('services', 'services.id', 'vendor_feeds.service_id')
        .select(['services.urlname', 'vendor_feeds.last_checked_at'])
        .where('services.feed_kind', 'is not', null)
        .where('services.feed_url', 'is not', null)
        .where(watched)
        .execute();
      for (const r of rows) {
        g.set({ feed: r.urlname }, r.last_checked_at === null ? Number.POSITIVE_INFINITY : Math.max(0, (at - Number(r.last_checked_at)) / 1000));
      }
    },
  );

  registerAgentGauges(gauge, db, now);
}
