import { CompiledQuery, sql } from 'kysely';
import type { Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';

import type { EngineQueries } from '../../engine.js';
import { prepared } from '../../prepared.js';
import type { Database, OutboxRow } from '../../schema.js';
import { knowStatement } from '../../write-effects.js';

/*
 * PostgreSQL: several processes (replicas) and several transactions of each
 * write at once. A round trip costs more than the small statements of a
 * change, so writes that do not depend on one another go out as one statement.
 */

type Arrays = 'companies' | 'subscribers' | 'streams' | 'events' | 'payloads' | 'nows' | 'guarded';

const arraysOf = (rows: readonly { row: OutboxRow; guarded: boolean }[]): Record<Arrays, unknown> => ({
  companies: rows.map((r) => r.row.companyId),
  subscribers: rows.map((r) => r.row.subscriberId),
  streams: rows.map((r) => r.row.stream),
  events: rows.map((r) => r.row.event),
  // One JSON list, whose items PostgreSQL hands back as their text, as JSON.stringify wrote each.
  payloads: JSON.stringify(rows.map((r) => r.row.payload)),
  nows: rows.map((r) => r.row.now),
  guarded: rows.map((r) => r.guarded),
});

/**
 * Any number of rows in one statement of one text (prepared once), in the
 * order given, so that ids follow it; those marked `guarded` only when
 * `guard` holds.
 */
function unnestInsert(guard?: Expression<SqlBool>) {
  return prepared<Arrays, never>((db, p) =>
    db
      .insertInto('outbox')
      .columns(['company_id', 'subscriber_id', 'stream', 'event', 'payload', 'state', 'next_attempt_at', 'created_at'])
      .expression(
        sql`select r.c, r.s, r.st, r.e, r.p::text, 'pending', r.t, r.t
          from rows from (unnest(${p.companies}::bigint[]), unnest(${p.subscribers}::bigint[]), unnest(${p.streams}::text[]),
            unnest(${p.events}::text[]), json_array_elements(${p.payloads}::json), unnest(${p.nows}::bigint[]), unnest(${p.guarded}::boolean[]))
          with ordinality as r(c, s, st, e, p, t, g, n)
          ${guard ? sql`where not r.g or ${guard}` : sql``}
          order by r.n`,
      ),
  );
}

const unguardedInsert = unnestInsert();
/** By guard expression: each is one statement text, prepared once. */
const guardedInserts = new WeakMap<Expression<SqlBool>, ReturnType<typeof unnestInsert>>();

/** Texts of combined statements, by the texts of their parts (see batchWrites). */
const combined = new Map<string, string>();
const COMBINED_LIMIT = 200;
// Texts by a short id: the texts come from prepared queries, each one string that keeps its hash, unlike a text joined anew.
const textIds = new Map<string, number>();
const textId = (text: string): number => {
  let id = textIds.get(text);
  if (id === undefined) {
    if (textIds.size >= COMBINED_LIMIT * 4) {
      textIds.clear();
      combined.clear();
    }
    id = textIds.size;
    textIds.set(text, id);
  }
  return id;
};

/**
 * The parts as one statement, each a `with` part of it (`read` first when
 * given): their parameters are renumbered to follow one another.
 */
function combine(parts: readonly CompiledQuery[], read: boolean): string {
  const key = parts.map((w) => textId(w.sql)).join(' ');
  let text = combined.get(key);
  if (text !== undefined) return text;
  let offset = 0;
  const shifted = parts.map((w) => {
    const part = offset === 0 ? w.sql : w.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    offset += w.parameters.length;
    return part;
  });
  const names = parts.map((_, i) => (read ? (i === 0 ? 'read' : `w${i - 1}`) : `w${i}`));
  text = `with ${shifted.map((part, i) => `${names[i]} as (${part})`).join(', ')} ${read ? 'select * from read' : 'select 1'}`;
  if (combined.size >= COMBINED_LIMIT) combined.clear();
  combined.set(key, text);
  return text;
}

export const postgresQueries: EngineQueries = {
  json: { object: 'json_build_object', list: 'json_agg' },

  // Foreign keys are checked once all parts have run. Parameters must appear in the texts only as kysely writes them ($1, …).
  async batchWrites<R = never>(db: Kysely<Database>, writes: readonly CompiledQuery[], read?: CompiledQuery<R>): Promise<R[]> {
    if (writes.length < 2 && !read) {
      for (const write of writes) await db.executeQuery(write);
      return [];
    }
    const parts = read ? [read, ...writes] : writes;
    const combined = CompiledQuery.raw(
      combine(parts, read !== undefined),
      parts.flatMap((w) => w.parameters),
    ) as CompiledQuery<R>;
    // Its text is known to what runs it (the writer tells what it writes).
    knowStatement(combined);
    return (await db.executeQuery<R>(combined)).rows;
  },

  outboxWrites(db: Kysely<Database>, rows: readonly { row: OutboxRow; guarded: boolean }[], guard?: Expression<SqlBool>): CompiledQuery[] {
    if (rows.length === 0) return [];
    let insert = unguardedInsert;
    if (guard && rows.some((r) => r.guarded)) {
      insert = guardedInserts.get(guard) ?? unnestInsert(guard);
      guardedInserts.set(guard, insert);
    }
    return [insert.bind(db, arraysOf(rows))];
  },

  reservedId: (table: 'incidents'): RawBuilder<number> | null => sql<number>`nextval(pg_get_serial_sequence(${table}, 'id'))`,
  lockingReadsMayPredateLock: true,
  sharedByProcesses: true,
  // biome-ignore lint/suspicious/noExplicitAny: any select may be claimed
  forClaim: <Q extends SelectQueryBuilder<Database, any, object>>(query: Q, table: string): Q => query.forUpdate(table as never).skipLocked() as Q,
  // The identity sequence does not see given ids: it is moved on past them.
  async afterGivenIds(trx: Kysely<Database>, table: string): Promise<void> {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(trx);
  },
  // The first column: the id, or the leading key.
  stableOrder: sql`1`,
};
