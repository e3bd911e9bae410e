import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import { knowledgeFrom, STALE_AFTER_INTERVALS } from '../services/feed-knowledge.js';
import type { Knowledge } from '../model/service.js';
import type { FeedKind, VendorMaintenance } from './vendor-snapshot.js';
import { clipText } from '../clip-text.js';

/** A feed to read now, with what the last read left: the validators for a conditional request. */
export interface DueFeed {
  serviceId: number;
  urlname: string;
  name: string;
  kind: FeedKind;
  url: string;
  /** Per document address: the ETag and Last-Modified of its last answer. */
  validators: Record<string, { etag?: string; lastModified?: string }>;
  failures: number;
  fingerprint: string | null;
}

/** A polled feed as operators see it (`statusbot feeds`). */
export interface FeedState {
  urlname: string;
  kind: FeedKind;
  url: string;
  watched: boolean;
  indicator: string | null;
  lastCheckedAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  failures: number;
  nextPollAt: Date;
  /** What the last read left out (items it could not read). */
  skipped: string[];
  /** Whether the status is known now, or why not (see feed-knowledge.ts). */
  knowledge: Knowledge;
}

/**
 * Services somebody watches: a company monitors it, a board shows it, a status page shows it as a third party, a
 * channel follows it, or it is polled always. Whatever statusbot shows, it reads.
 */
export const watched = (eb: ExpressionBuilder<Database, 'services'>) =>
  eb.or([
    eb('services.poll_always', '=', 1),
    // third_party is a JSON list of urlnames, which are letters, digits and dashes: no LIKE wildcard can occur in one.
    eb.exists(eb.selectFrom('status_pages as p').select('p.id').where(sql<boolean>`p.third_party like '%"' || services.urlname || '"%'`)),
    eb.exists(eb.selectFrom('company_monitored_services as m').select('m.service_id').whereRef('m.service_id', '=', 'services.id')),
    eb.exists(eb.selectFrom('board_services as b').select('b.service_id').whereRef('b.service_id', '=', 'services.id')),
    eb.exists(eb.selectFrom('channel_subscriptions as c').select('c.service_id').whereRef('c.service_id', '=', 'services.id').where('c.kind', '=', 'service')),
  ]);

const parseJson = <T>(text: string | null, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/**
 * Takes up to `limit` watched feeds that are due and not held by another
 * process, and holds them for `leaseMs`: several processes on one database
 * read each feed once per interval.
 */
export async function claimDueFeeds(ctx: DomainContext, options: { limit: number; leaseMs: number }): Promise<DueFeed[]> {
  const now = ctx.clock.now().getTime();
  const rows = await ctx.db
    .selectFrom('vendor_feeds')
    .innerJoin('services', 'services.id', 'vendor_feeds.service_id')
    .select([
      'services.id',
      'services.urlname',
      'services.name',
      'services.feed_kind',
      'services.feed_url',
      'vendor_feeds.validators',
      'vendor_feeds.failures',
      'vendor_feeds.fingerprint',
    ])
    .where('vendor_feeds.next_poll_at', '<=', now)
    .where((eb) => eb.or([eb('vendor_feeds.lease_until', 'is', null), eb('vendor_feeds.lease_until', '<', now)]))
    .where('services.feed_kind', 'is not', null)
    .where('services.feed_url', 'is not', null)
    .where(watched)
    .orderBy('vendor_feeds.next_poll_at')
    .limit(options.limit)
    .execute();
  if (rows.length === 0) return [];
  return ctx.write(async (trx) => {
    const taken: DueFeed[] = [];
    for (const r of rows) {
      const result = await trx
        .updateTable('vendor_feeds')
        .set({ lease_until: now + options.leaseMs })
        .where('service_id', '=', r.id)
        .where('next_poll_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) continue;
      taken.push({
        serviceId: r.id,
        urlname: r.urlname,
        name: r.name,
        kind: r.feed_kind!,
        url: r.feed_url!,
        validators: parseJson(r.validators, {}),
        failures: r.failures,
        fingerprint: r.fingerprint,
      });
    }
    return taken;
  });
}

/** The next read after `failures` failed ones: one interval, then doubling, at most 30 minutes. */
export function nextPollDelay(intervalMs: number, failures: number, random: () => number = Math.random): number {
  if (failures > 0) return Math.min(30 * 60_000, Math.max(intervalMs, intervalMs * 2 ** (failures - 1)));
  // ±10 %, so that feeds read together once drift apart.
  return Math.round(intervalMs * (0.9 + 0.2 * random()));
}

/** What every successful read records: when, no error, the next read one interval on (with jitter). */
export const succeededRead = (now: number, intervalMs: number, validators: DueFeed['validators']) => ({
  validators: JSON.stringify(validators),
  last_checked_at: now,
  stale_at: now + STALE_AFTER_INTERVALS * intervalMs,
  last_error: null,
  last_error_at: null,
  failures: 0,
  next_poll_at: now + nextPollDelay(intervalMs, 0),
  lease_until: null,
});

/** A read that brought nothing new (every document 304, or the same snapshot): only its time is written. */
export async function recordFeedUnchanged(
  ctx: DomainContext,
  feed: DueFeed,
  options: { validators: DueFeed['validators']; intervalMs: number },
): Promise<void> {
  const now = ctx.clock.now().getTime();
  await ctx.write((trx) =>
    trx
      .updateTable('vendor_feeds')
      .set(succeededRead(now, options.intervalMs, options.validators))
      .where('service_id', '=', feed.serviceId)
      .execute(),
  );
}

/** A failed read: the last known status stays, the error is kept for operators, and the next read backs off. */
export async function recordFeedFailure(ctx: DomainContext, feed: DueFeed, error: string, options: { intervalMs: number }): Promise<void> {
  const now = ctx.clock.now().getTime();
  const failures = feed.failures + 1;
  await ctx.write((trx) =>
    trx
      .updateTable('vendor_feeds')
      .set({
        last_error: clipText(error, 500),
        last_error_at: now,
        failures,
        next_poll_at: now + nextPollDelay(options.intervalMs, failures),
        lease_until: null,
      })
      .where('service_id', '=', feed.serviceId)
      .execute(),
  );
}

/** Every feed of the catalog with its state, watched ones first. */
export async function listFeeds(ctx: DomainContext): Promise<FeedState[]> {
  const now = ctx.clock.now().getTime();
  const rows = await ctx.db
    .selectFrom('vendor_feeds')
    .innerJoin('services', 'services.id', 'vendor_feeds.service_id')
    .select((eb) => [
      'services.urlname',
      'services.feed_kind',
      'services.feed_url',
      'vendor_feeds.indicator',
      'vendor_feeds.last_checked_at',
      'vendor_feeds.last_error',
      'vendor_feeds.last_error_at',
      'vendor_feeds.failures',
      'vendor_feeds.next_poll_at',
      'vendor_feeds.stale_at',
      'vendor_feeds.skipped',
      watched(eb).as('watched'),
    ])
    .where('services.feed_kind', 'is not', null)
    .orderBy('services.urlname')
    .execute();
  return rows
    .map((r) => ({
      urlname: r.urlname,
      kind: r.feed_kind!,
      url: r.feed_url ?? '',
      watched: Boolean(r.watched),
      indicator: r.indicator,
      lastCheckedAt: r.last_checked_at === null ? null : new Date(r.last_checked_at),
      lastError: r.last_error,
      lastErrorAt: r.last_error_at === null ? null : new Date(r.last_error_at),
      failures: r.failures,
      nextPollAt: new Date(r.next_poll_at),
      skipped: parseJson<string[]>(r.skipped, []),
      knowledge: knowledgeFrom({ ...r, failures: Number(r.failures) }, now),
    }))
    .sort((a, b) => Number(b.watched) - Number(a.watched));
}

const FINISHED_MAINTENANCE = /^(completed|complete|cancelled|canceled|resolved|finished|ended)$/i;

/**
 * Each vendor's maintenances not over at `now` (upcoming or under way), soonest first, as its feed last listed
 * them, in one read; a service without any has an empty list.
 */
export async function vendorMaintenancesOf(db: Kysely<Database>, serviceIds: readonly number[], now: number): Promise<Map<number, VendorMaintenance[]>> {
  const rows =
    serviceIds.length === 0
      ? []
      : await db
          .selectFrom('vendor_feeds')
          .select(['service_id', 'maintenances'])
          .where('service_id', 'in', [...serviceIds])
          .execute();
  const listed = new Map(rows.map((r) => [r.service_id, r.maintenances]));
  return new Map(serviceIds.map((id) => [id, notOver(listed.get(id) ?? null, now)]));
}

function notOver(kept: string | null, now: number): VendorMaintenance[] {
  return parseJson<Array<Omit<VendorMaintenance, 'startsAt' | 'endsAt'> & { startsAt: string; endsAt: string | null }>>(kept, [])
    .map((m) => ({ ...m, startsAt: new Date(m.startsAt), endsAt: m.endsAt === null ? null : new Date(m.endsAt) }))
    .filter((m) => !FINISHED_MAINTENANCE.test(m.status) && (m.endsAt === null || m.endsAt.getTime() > now))
    .sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime());
}

/** The feeds of the services named (each must have one), or, with none named, of every watched service; by urlname. */
export async function feedAddresses(ctx: DomainContext, urlnames: readonly string[]): Promise<{ urlname: string; kind: FeedKind; url: string }[]> {
  let query = ctx.db
    .selectFrom('services')
    .select(['services.urlname', 'services.feed_kind', 'services.feed_url'])
    .where('services.feed_kind', 'is not', null)
    .where('services.feed_url', 'is not', null)
    .orderBy('services.urlname');
  query = urlnames.length > 0 ? query.where('services.urlname', 'in', [...urlnames]) : query.where(watched);
  const rows = await query.execute();
  const missing = urlnames.filter((name) => !rows.some((r) => r.urlname === name));
  if (missing.length > 0) throw new DomainError('not_found', `no service with a feed is named ${missing.join(', ')}`);
  return rows.map((r) => ({ urlname: r.urlname, kind: r.feed_kind!, url: r.feed_url! }));
}
