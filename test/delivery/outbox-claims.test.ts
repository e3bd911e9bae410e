import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/db/dialect.js';
import type { Db } from '../../src/db/database.js';
import { claimDue, dueHeads } from '../../src/delivery/outbox-queue.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { TEST_ENGINE } from '../helpers/test-database.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

const SENT = 20_000;
const STREAMS = 30;
const PENDING_PER_STREAM = 10;

/** An outbox mostly of delivered rows, with a few streams still waiting, and statistics that say so. */
async function busyOutbox(): Promise<TestServer> {
  const s = await startTestServer();
  servers.push(s);
  const { id: companyId } = await s.ctx.db.selectFrom('companies').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
  const now = s.clock.now().getTime();
  const row = (stream: string, state: 'pending' | 'sent' | 'dead') => ({
    company_id: companyId,
    stream,
    event: 'incident.updated',
    payload: '{}',
    state,
    next_attempt_at: now - 1_000,
    created_at: now - 60_000,
    sent_at: state === 'sent' ? now - 30_000 : null,
  });
  const rows = [
    ...Array.from({ length: SENT }, (_, i) => row(`subscriber:${i % 500}`, 'sent')),
    ...Array.from({ length: STREAMS * PENDING_PER_STREAM }, (_, i) => row(`subscriber:p${i % STREAMS}`, 'pending')),
    ...Array.from({ length: 5 }, (_, i) => row(`subscriber:d${i}`, 'dead')),
  ];
  for (let i = 0; i < rows.length; i += 1_000)
    await s.ctx.db
      .insertInto('outbox')
      .values(rows.slice(i, i + 1_000))
      .execute();
  await sql`analyze`.execute(s.ctx.db);
  return s;
}

const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);

/** The plan each engine makes of the claim's read; on PostgreSQL the generic plan of the prepared statement, as a prepared statement's sixth run uses. */
async function planOf(db: Db, query: CompiledQuery): Promise<string> {
  if (TEST_ENGINE === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r.detail).join('\n');
  }
  return db.connection().execute(async (conn) => {
    await conn.executeQuery(CompiledQuery.raw(`prepare claim_plan as ${query.sql}`));
    await conn.executeQuery(CompiledQuery.raw('set plan_cache_mode = force_generic_plan'));
    try {
      const { rows } = await conn.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain execute claim_plan(${query.parameters.map(literal).join(', ')})`),
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await conn.executeQuery(CompiledQuery.raw('reset plan_cache_mode'));
      await conn.executeQuery(CompiledQuery.raw('deallocate claim_plan'));
    }
  });
}

function expectIndexed(plan: string): void {
  expect(plan).toContain('outbox_pending');
  if (TEST_ENGINE === 'sqlite') {
    // A SCAN of a table without an index reads every row, delivered ones too.
    expect(plan).not.toMatch(/^SCAN (o|outbox)$/m);
  } else {
    expect(plan).not.toMatch(/Seq Scan on outbox/);
  }
}

describe('claiming due outbox rows', () => {
  it("reads each stream's head through the pending index, also in a generic plan and under row locks", async () => {
    const s = await busyOutbox();
    const options = { now: s.clock.now().getTime(), limit: 8, streamPrefixes: ['subscriber:', 'email:'] };
    const plain = await planOf(s.ctx.db, dueHeads(s.ctx.db, options).compile());
    expectIndexed(plain);
    const locking = await planOf(s.ctx.db, dialectOf(s.ctx.db).forClaim(dueHeads(s.ctx.db, options), 'o').compile());
    expectIndexed(locking);
  });

  it("claims a batch of streams' first rows in id order, and not again while their lease holds", async () => {
    const s = await busyOutbox();
    const claim = () => claimDue(s.ctx, { limit: 8, leaseMs: 60_000, busy: new Set(['subscriber:p0']), streamPrefixes: ['subscriber:'] });
    const first = await claim();
    expect(first.map((e) => e.stream)).toEqual(Array.from({ length: 8 }, (_, i) => `subscriber:p${i + 1}`));
    expect(first.every((e) => e.state === 'pending')).toBe(true);
    const second = await claim();
    expect(second.map((e) => e.stream)).toEqual(Array.from({ length: 8 }, (_, i) => `subscriber:p${i + 9}`));
    const heads = await s.ctx.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.min('id').as('id'))
      .where('state', '=', 'pending')
      .where('stream', 'in', ['subscriber:p1', 'subscriber:p9'])
      .groupBy('stream')
      .orderBy('id')
      .execute();
    expect([first[0]!.id, second[0]!.id]).toEqual(heads.map((h) => Number(h.id)));
  });
});
