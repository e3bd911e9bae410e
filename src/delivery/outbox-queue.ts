import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import { LISTENER_NAME_PREFIX } from '../db/change-feed.js';
import { changeFeedOf } from '../db/database.js';
import { changesNothingCached, dialectOf, paddedIds } from '../db/dialect.js';
import type { ChatPlatform, Database, OutboxTable } from '../db/schema.js';
import type { DomainContext } from '../domain/context.js';
import { requeueDead } from '../domain/notifications/enqueue.js';
import { clipText } from '../domain/clip-text.js';

export interface OutboxEntry {
  id: number;
  companyId: number;
  subscriberId: number | null;
  stream: string;
  event: string;
  payload: string;
  state: OutboxTable['state'];
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  progress: Record<string, string>;
}

/** A row this process claimed; `lease` names the claim, which alone may renew it, mark the row or record its progress. */
export interface ClaimedEntry extends OutboxEntry {
  lease: string;
}

const columns = [
  'id',
  'company_id',
  'subscriber_id',
  'stream',
  'event',
  'payload',
  'state',
  'attempts',
  'next_attempt_at',
  'last_error',
  'created_at',
  'sent_at',
  'progress',
] as const;

type Row = Pick<Selectable<OutboxTable>, (typeof columns)[number]>;

const toEntry = (r: Row): OutboxEntry => ({
  id: r.id,
  companyId: r.company_id,
  subscriberId: r.subscriber_id,
  stream: r.stream,
  event: r.event,
  payload: r.payload,
  state: r.state,
  attempts: r.attempts,
  nextAttemptAt: new Date(r.next_attempt_at),
  lastError: r.last_error,
  createdAt: new Date(r.created_at),
  sentAt: r.sent_at === null ? null : new Date(r.sent_at),
  progress: r.progress ? (JSON.parse(r.progress) as Record<string, string>) : {},
});

/** Between the replica and the claim in a lease's token (`<replica>:<claim>`); a replica's name has none. */
const HOLDER_END = ':';

/**
 * PostgreSQL: the lease is held by a replica that is gone. Each replica keeps
 * one connection open, named after it, while it runs (see ChangeFeed); a
 * process killed outright loses it at once, and PostgreSQL ends its session.
 * That alone is no proof: a live replica's listening connection may drop for a
 * moment and come back, while its deliveries go on. So the lease must also have
 * missed a renewal (a holder renews every third of a lease, so one renewed last
 * over half a lease ago, `lease_until < renewedBefore`): only then is the claim
 * taken over, sooner than when the lease runs out, and never while its holder
 * may still be sending. A token without a replica's name (SQLite's, or a
 * test's) is left to its lease.
 */
const heldByGone = (leaseUntil: ReturnType<typeof sql.ref>, token: ReturnType<typeof sql.ref>, renewedBefore: number) =>
  sql<SqlBool>`(${leaseUntil} < ${renewedBefore} and position(${sql.lit(HOLDER_END)} in ${token}) > 0 and not exists (select 1 from pg_stat_activity a
    where a.datname = current_database() and a.application_name = ${sql.lit(LISTENER_NAME_PREFIX)} || split_part(${token}, ${sql.lit(HOLDER_END)}, 1)))`;

/**
 * PostgreSQL: this replica's name, which its claims carry; and whether it may
 * take over the claims of replicas that are gone: only while its own
 * connection is there (after a restart of the server, the others' come back too).
 */
const holderOf = (ctx: DomainContext): { replica: string; takesOver: boolean } | null => {
  const feed = changeFeedOf(ctx.db);
  return feed ? { replica: feed.replica, takesOver: feed.listening } : null;
};

/** Rows of one stream delivered at once, by the start of its name; a stream not named goes one row at a time, in order. */
export type StreamWidths = Readonly<Record<string, number>>;

/** Past any row id: the bound of a stream with fewer pending rows than its width. */
const NO_BOUND = 2 ** 53 - 1;

/**
 * What `claimDue` reads: the first pending rows of each stream whose turn has
 * come, in id order — the head alone of an ordered stream, up to its width of
 * a stream whose rows may go side by side. A row under way or waiting for its
 * retry keeps its place among the first: however many replicas claim, a
 * stream never has more than its width under way.
 *
 * The streams with pending rows are found by skipping through the pending
 * index, one probe each, and each one's first rows by a range of it: the cost
 * follows the number of streams, not of the rows waiting in them.
 */
export function dueHeads(
  db: Kysely<Database>,
  options: { now: number; limit: number; streamPrefixes: readonly string[]; widths?: StreamWidths; takeOverGoneBefore?: number },
) {
  const { now } = options;
  const wide = Object.entries(options.widths ?? {}).filter(([prefix, width]) => width > 1 && options.streamPrefixes.includes(prefix));
  const startsWith = (prefix: string) => sql<SqlBool>`substr(s.stream, 1, ${prefix.length}) = ${prefix}`;
  // `state` is written as a literal so that a generic plan (PostgreSQL's prepared statements) can still use the partial index.
  const pending = sql.lit('pending' as const);
  const nth = (n: number) =>
    sql<number>`coalesce((select i.id from outbox i where i.state = ${pending} and i.stream = s.stream order by i.id limit 1 offset ${sql.lit(n - 1)}), ${sql.lit(NO_BOUND)})`;
  const head = sql<number>`(select min(i.id) from outbox i where i.state = ${pending} and i.stream = s.stream)`;
  const bound =
    wide.length === 0
      ? head
      : sql<number>`case ${sql.join(
          wide.map(([prefix, width]) => sql`when ${startsWith(prefix)} then ${nth(width)}`),
          sql` `,
        )} else ${head} end`;
  return (
    db
      .withRecursive(
        'streams(stream)',
        () =>
          sql`(select min(stream) from outbox where state = ${pending} union all select (select min(n.stream) from outbox n where n.state = ${pending} and n.stream > streams.stream) from streams where streams.stream is not null)` as never,
      )
      .selectFrom('streams as s' as never as 'outbox as s')
      .innerJoin('outbox as o', 'o.stream', 's.stream')
      .select(columns.map((c) => `o.${c}` as const))
      .where(sql<SqlBool>`s.stream is not null`)
      // Only streams a publisher of this process delivers: rows for a destination it has no credentials for must not crowd out the rest.
      .where((e) => e.or(options.streamPrefixes.map((prefix) => startsWith(prefix))))
      .where('o.state', '=', pending)
      .where('o.id', '<=', bound)
      .where('o.next_attempt_at', '<=', now)
      .where((eb) =>
        eb.or([
          eb('o.lease_until', 'is', null),
          eb('o.lease_until', '<', now),
          ...(options.takeOverGoneBefore !== undefined ? [heldByGone(sql.ref('o.lease_until'), sql.ref('o.lease_token'), options.takeOverGoneBefore)] : []),
        ]),
      )
      .orderBy('o.id')
      .limit(options.limit)
  );
}

/**
 * Takes the first pending rows of streams whose turn has come, up to `limit`,
 * skipping `busy` streams, and holds them for `leaseMs` so that no other
 * process delivers them meanwhile. Rows of an ordered stream go out in id
 * order: its later rows wait until its first one is sent or dead; a stream
 * given a width in `widths` has up to that many of its first rows under way.
 */
export async function claimDue(
  ctx: DomainContext,
  options: {
    limit: number;
    leaseMs: number;
    busy: ReadonlySet<string>;
    streamPrefixes: readonly string[];
    widths?: StreamWidths;
    /** Rows a stream may start now, below its width (its rate limit). */
    allowance?: (stream: string) => number;
  },
): Promise<ClaimedEntry[]> {
  const now = ctx.clock.now().getTime();
  const widest = Math.max(1, ...Object.values(options.widths ?? {}));
  const holder = holderOf(ctx);
  // A lease whose last renewal is over half a lease ago has missed one (see heldByGone).
  const takeOverGoneBefore = holder?.takesOver === true ? now + options.leaseMs / 2 : undefined;
  const heads = (db: Kysely<Database>) =>
    dueHeads(db, {
      now,
      ...(takeOverGoneBefore !== undefined ? { takeOverGoneBefore } : {}),
      limit: options.limit + options.busy.size * widest,
      streamPrefixes: options.streamPrefixes,
      ...(options.widths ? { widths: options.widths } : {}),
    });
  const pick = (rows: Awaited<ReturnType<ReturnType<typeof heads>['execute']>>) => {
    const taken = new Map<string, number>();
    return rows
      .filter((row) => {
        if (options.busy.has(row.stream)) return false;
        const n = (taken.get(row.stream) ?? 0) + 1;
        taken.set(row.stream, n);
        return options.allowance === undefined || n <= options.allowance(row.stream);
      })
      .slice(0, options.limit);
  };
  const take = async (trx: Kysely<Database>, candidates: ReturnType<typeof pick>) => {
    if (candidates.length === 0) return [];
    // One statement for the batch, under one token: the rows are this claim's. Another process may have
    // taken a row since: the lease is taken only where it is free.
    const lease = holder === null ? randomUUID() : `${holder.replica}${HOLDER_END}${randomUUID()}`;
    const taken = await trx
      .updateTable('outbox')
      .set({ lease_until: now + options.leaseMs, lease_token: lease })
      .where(
        'id',
        'in',
        candidates.map((row) => row.id),
      )
      .where('state', '=', sql.lit('pending'))
      .where((eb) =>
        eb.or([
          eb('lease_until', 'is', null),
          eb('lease_until', '<', now),
          ...(takeOverGoneBefore !== undefined ? [heldByGone(sql.ref('outbox.lease_until'), sql.ref('outbox.lease_token'), takeOverGoneBefore)] : []),
        ]),
      )
      .returning('id')
      .execute();
    const ids = new Set(taken.map((r) => r.id));
    return candidates.filter((row) => ids.has(row.id)).map((row): ClaimedEntry => ({ ...toEntry(row), lease }));
  };
  const candidates = pick(await heads(ctx.db).execute());
  // Nothing to take: no write, so that looking costs no commit.
  if (candidates.length === 0) return [];
  if (dialectOf(ctx.db).sharedByProcesses) {
    // PostgreSQL: taken again under row locks; rows another replica is claiming right now are skipped, not waited for.
    return bookkeeping(ctx, async (trx) => take(trx, pick(await dialectOf(trx).forClaim(heads(trx), 'o').execute())));
  }
  return bookkeeping(ctx, (trx) => take(trx, candidates));
}

/**
 * The writes of a delivery, each only while its claim still holds the row:
 * false when another process has taken the lease over (this one's ran out
 * meanwhile), and then nothing is changed.
 */
const holding = (trx: Kysely<Database>, id: number, lease: string) =>
  trx.updateTable('outbox').where('id', '=', id).where('state', '=', 'pending').where('lease_token', '=', lease);

const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) === 1;

/**
 * Claims, leases and outcomes are not synced to disk one by one: a power cut
 * that loses them only delivers a row again, with the same key, or tries it
 * once more. What a delivery must not repeat (its steps) is synced.
 */
const BOOKKEEPING = { durable: false } as const;

/**
 * A write of delivery's bookkeeping: it changes nothing a cached read shows
 * (see UNCACHED_TABLES), so its commit waits for no replica to hear of it.
 */
function bookkeeping<T>(ctx: DomainContext, unit: (trx: Kysely<Database>) => Promise<T>, options: { durable: boolean } = BOOKKEEPING): Promise<T> {
  return ctx.write((trx) => {
    changesNothingCached(trx);
    return unit(trx);
  }, options);
}

/** Holds the row for another `leaseMs`; false when the lease is no longer this claim's. */
export async function renewLease(ctx: DomainContext, id: number, lease: string, leaseMs: number): Promise<boolean> {
  const now = ctx.clock.now().getTime();
  return changed(
    await bookkeeping(ctx, (trx) =>
      holding(trx, id, lease)
        .set({ lease_until: now + leaseMs })
        .executeTakeFirst(),
    ),
  );
}

export async function markSent(ctx: DomainContext, id: number, lease: string): Promise<boolean> {
  return (await markSentBatch(ctx, [{ id, lease }])).has(id);
}

/**
 * Marks confirmed rows sent in one transaction: those whose claim still holds
 * them. Returns their ids; a row whose lease another process has taken over
 * is left to it. When the transaction fails, none is marked: each stays
 * claimed until its lease runs out and is delivered again, with the same
 * Idempotency-Key.
 */
export async function markSentBatch(ctx: DomainContext, claims: readonly { id: number; lease: string }[]): Promise<Set<number>> {
  const now = ctx.clock.now().getTime();
  const marked = new Set<number>();
  if (claims.length === 0) return marked;
  // One statement per claim (its rows share its lease), not one per row.
  const byLease = new Map<string, number[]>();
  for (const { id, lease } of claims) {
    const ids = byLease.get(lease);
    if (ids) ids.push(id);
    else byLease.set(lease, [id]);
  }
  await bookkeeping(ctx, async (trx) => {
    marked.clear();
    for (const [lease, ids] of byLease) {
      const rows = await trx
        .updateTable('outbox')
        .set({ state: 'sent', sent_at: now, lease_until: null, lease_token: null, last_error: null })
        .where('id', 'in', paddedIds(ids))
        .where('state', '=', 'pending')
        .where('lease_token', '=', lease)
        .returning('id')
        .execute();
      for (const row of rows) marked.add(row.id);
    }
  });
  return marked;
}

/** Schedules the next attempt, or dead-letters the row when `dead`. */
export async function markFailed(
  ctx: DomainContext,
  id: number,
  lease: string,
  failure: { error: string; countsAsAttempt: boolean; retryAt: number; dead: boolean },
): Promise<boolean> {
  return changed(
    await bookkeeping(ctx, (trx) =>
      holding(trx, id, lease)
        .set((eb) => ({
          state: failure.dead ? 'dead' : 'pending',
          attempts: failure.countsAsAttempt ? eb('attempts', '+', 1) : eb.ref('attempts'),
          last_error: clipText(failure.error, 2000),
          next_attempt_at: failure.retryAt,
          lease_until: null,
          lease_token: null,
        }))
        .executeTakeFirst(),
    ),
  );
}

/** Gives up this process's claim on a row without counting an attempt: the stop cut its delivery short. */
export async function releaseClaim(ctx: DomainContext, id: number, lease: string): Promise<boolean> {
  return changed(await bookkeeping(ctx, (trx) => holding(trx, id, lease).set({ lease_until: null, lease_token: null }).executeTakeFirst()));
}

/** Records a confirmed step of a multi-step delivery. */
export async function saveProgress(ctx: DomainContext, id: number, lease: string, progress: Record<string, string>): Promise<boolean> {
  return changed(
    await bookkeeping(
      ctx,
      (trx) =>
        holding(trx, id, lease)
          .set({ progress: JSON.stringify(progress) })
          .executeTakeFirst(),
      // A step confirmed must not be made again: on disk before the next.
      { durable: true },
    ),
  );
}

export async function listOutbox(ctx: DomainContext, options: { state?: OutboxEntry['state']; limit?: number } = {}): Promise<OutboxEntry[]> {
  let query = ctx.db
    .selectFrom('outbox')
    .select(columns)
    .orderBy('id')
    .limit(options.limit ?? 1000);
  if (options.state) query = query.where('state', '=', options.state);
  return (await query.execute()).map(toEntry);
}

/** Puts dead rows (all, or the given ids) back in line for delivery, with their attempts reset. */
export async function retryDead(ctx: DomainContext, ids?: readonly number[]): Promise<number> {
  const now = ctx.clock.now().getTime();
  const result = await ctx.write((trx) => {
    let query = requeueDead(trx, now);
    if (ids && ids.length > 0) query = query.where('id', 'in', [...ids]);
    return query.executeTakeFirst();
  });
  return Number(result.numUpdatedRows);
}

/** The message that shows a subject (an incident, a digest) in a channel. */
export async function chatMessageOf(ctx: DomainContext, platform: ChatPlatform, channelId: string, subject: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('chat_messages')
    .select('message_id')
    .where('platform', '=', platform)
    .where('channel_id', '=', channelId)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row?.message_id ?? null;
}

export async function rememberChatMessage(ctx: DomainContext, platform: ChatPlatform, channelId: string, subject: string, messageId: string): Promise<void> {
  const now = ctx.clock.now().getTime();
  await bookkeeping(
    ctx,
    (trx) =>
      trx
        .insertInto('chat_messages')
        .values({ platform, channel_id: channelId, subject, message_id: messageId, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['platform', 'channel_id', 'subject']).doUpdateSet({ message_id: messageId, updated_at: now }))
        .execute(),
    // The next update edits this message rather than post another: kept across a power cut.
    { durable: true },
  );
}

const PLATFORM_NAMES: Record<ChatPlatform, string> = { slack: 'Slack', discord: 'Discord' };
/** How long a notification queued while its platform was off waits for it to be turned on. */
export const WAIT_FOR_PLATFORM_MS = 24 * 60 * 60_000;

/**
 * Notifications queued for a chat platform while it was off (by an earlier
 * version, which queued them anyway): those never tried are marked as
 * waiting, with why, where the platform is off in this process; a waiting one
 * older than a day expires (dead-lettered, which `statusbot outbox retry`
 * undoes) rather than flood the channel once the platform is on. A row that
 * was tried (a transient outage) is left to its retries.
 */
export async function settleRowsOfPlatformsOff(ctx: DomainContext): Promise<{ waiting: number; expired: number }> {
  const now = ctx.clock.now().getTime();
  let waiting = 0;
  let expired = 0;
  await ctx.write(async (trx) => {
    for (const platform of Object.keys(PLATFORM_NAMES) as ChatPlatform[]) {
      const name = PLATFORM_NAMES[platform];
      const ofPlatform = (eb: ExpressionBuilder<Database, 'outbox'>) =>
        eb(eb.fn<string>('substr', ['stream', eb.val(1), eb.val(platform.length + 1)]), '=', `${platform}:`);
      const missing = ctx.chatOff.get(platform);
      if (missing !== undefined) {
        const marked = await trx
          .updateTable('outbox')
          .set({ last_error: `waiting: ${name} is off (${missing})` })
          .where('state', '=', sql.lit('pending'))
          .where('attempts', '=', 0)
          .where('last_error', 'is', null)
          .where(ofPlatform)
          .executeTakeFirst();
        waiting += Number(marked.numUpdatedRows);
      }
      const dead = await trx
        .updateTable('outbox')
        .set({ state: 'dead', last_error: `expired: ${name} was off for a day`, lease_until: null, lease_token: null })
        .where('state', '=', sql.lit('pending'))
        .where('attempts', '=', 0)
        .where('last_error', 'like', `waiting: ${name} is off%`)
        .where('created_at', '<', now - WAIT_FOR_PLATFORM_MS)
        .where(ofPlatform)
        .executeTakeFirst();
      expired += Number(dead.numUpdatedRows);
    }
  });
  return { waiting, expired };
}
