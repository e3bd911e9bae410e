import { sql } from 'kysely';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { changeMarker, changeFeedOf, keysMarker, openDatabase } from '../../src/db/database.js';
import { FOREIGN_CHANGE_DELAY_MS } from '../../src/db/dialects/sqlite/change-feed.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { SEEN_CHANNEL } from '../../src/db/change-feed.js';
import { createWriter } from '../../src/db/writer.js';
import { claimDue, markSent, renewLease } from '../../src/delivery/outbox-queue.js';
import { takeSignedRequest } from '../../src/domain/chat/seen-requests.js';
import { pruneLeases, takeLease } from '../../src/domain/jobs/leases.js';
import { systemClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { waitUntil } from '../helpers/wait-until.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

let database: TestDatabase | undefined;
const opened: Db[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
  await database?.drop();
  database = undefined;
});

/** A process of its own on the test database (made, with a company, by the first). */
async function process(): Promise<Db> {
  const first = database === undefined;
  database ??= await createTestDatabase();
  const db = openDatabase({ path: database.path });
  opened.push(db);
  await migrateToLatest(db);
  await waitUntil(() => changeFeedOf(db)?.listening ?? true);
  if (first) await sql`insert into companies (id, name, plan, notify_on, created_at) values (1, 'Acme', 'business', '[]', 0)`.execute(db);
  return db;
}

const twoProcessesOnOneDatabase = async (): Promise<[Db, Db]> => [await process(), await process()];

const addKey = (id: number) => (db: Kysely<Database>) =>
  sql`insert into api_keys (id, company_id, key_hash, label, created_at) values (${id}, 1, ${`hash-${id}`}, 'k', 0)`.execute(db);

describe('what authenticated keys are remembered under', () => {
  it('has moved once a commit that changed API keys is done, in the process that made it and in every other', async () => {
    const a = await process();
    const alone = await keysMarker(a);
    // PostgreSQL: moved by the commit itself, not only by its notification, which may come back after the writer answered.
    const told = TEST_ENGINE === 'postgres' ? vi.spyOn(changeFeedOf(a)!, 'keysChanged') : null;
    await createWriter(a).run(async (trx) => void (await addKey(1)(trx)));
    expect(told?.mock.calls.length ?? 1).toBe(1);
    expect(await keysMarker(a)).not.toBe(alone);
    await createWriter(a).run(async (trx) => void (await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U9')`.execute(trx)));
    await sql`update api_keys set label = 'deploy' where id = 1`.execute(a);
    expect(told?.mock.calls.length ?? 2).toBe(2);

    const b = await process();
    const before = [await keysMarker(a), await keysMarker(b)];
    await createWriter(a).run(async (trx) => void (await addKey(2)(trx)));
    expect(await keysMarker(a)).not.toBe(before[0]);
    await waitUntil(async () => (await keysMarker(b)) !== before[1]);

    const marked = await keysMarker(b);
    await sql`update companies set plan = 'free' where id = 1`.execute(a);
    await waitUntil(async () => (await keysMarker(b)) !== marked);
  });

  it.skipIf(TEST_ENGINE !== 'postgres')('stays put on PostgreSQL through commits that leave keys and companies alone, from any process', async () => {
    const [a, b] = await twoProcessesOnOneDatabase();
    const admin = (user: string) => (db: Kysely<Database>) =>
      sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', ${user})`.execute(db);
    // Once b has heard a commit made after the company's, it has heard the company's too (notifications come in order).
    const heard = await changeMarker(b);
    await admin('U0')(a);
    await waitUntil(async () => (await changeMarker(b)) !== heard);
    const keys = [await keysMarker(a), await keysMarker(b)];

    const changes = [await changeMarker(a), await changeMarker(b)];
    await createWriter(a).run(async (trx) => void (await admin('U1')(trx)));
    await createWriter(b).run(async (trx) => void (await admin('U2')(trx)));
    await admin('U3')(a);
    // Every process has heard of the commits (their read caches moved on), and yet keys are still remembered.
    await waitUntil(async () => (await changeMarker(a)) !== changes[0] && (await changeMarker(b)) !== changes[1]);
    await waitUntil(async () => (await sql<{ n: number }>`select count(*)::int as n from chat_admins`.execute(b)).rows[0]!.n === 4);
    expect([await keysMarker(a), await keysMarker(b)]).toEqual(keys);
  });
});

describe('what cached reads are compared with', () => {
  it("does not move for the jobs' leases, taken, renewed and pruned, which no read shows", async () => {
    // The second process: it began to listen after the first wrote the company, whose notification it never hears.
    const [, a] = await twoProcessesOnOneDatabase();
    const ctx = createDomainContext({ db: a, clock: systemClock, publicUrl: 'http://localhost:8080' });
    const before = changeMarker(a);
    // Taken, then renewed by its holder (an upsert: `on conflict … do update set`), refused to another, pruned.
    expect(await takeLease(ctx, 'monitors', 'replica-1', 30_000)).toBe(true);
    expect(await takeLease(ctx, 'monitors', 'replica-1', 30_000)).toBe(true);
    expect(await takeLease(ctx, 'monitors', 'replica-2', 30_000)).toBe(false);
    await pruneLeases(ctx);
    expect(changeMarker(a)).toBe(before);
    // An upsert of a table a read shows still moves it.
    await createWriter(a).run(
      async (trx) =>
        void (await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U0')
          on conflict (company_id, platform, user_id) do update set user_id = excluded.user_id`.execute(trx)),
    );
    expect(changeMarker(a)).not.toBe(before);
  });

  it.skipIf(TEST_ENGINE !== 'sqlite')(
    'does not move on SQLite for delivery bookkeeping, in this process or another, and moves for a change a read shows, whoever writes it',
    async () => {
      const [a, b] = await twoProcessesOnOneDatabase();
      const ctx = createDomainContext({ db: a, clock: systemClock, publicUrl: 'http://localhost:8080' });
      /** Past the delay within which another process's commits are seen. */
      const afterForeignDelay = () => new Promise((ok) => setTimeout(ok, FOREIGN_CHANGE_DELAY_MS + 5));
      await sql`insert into outbox (company_id, stream, event, payload, state, next_attempt_at, created_at)
        values (1, 'webhook:1', 'incident.created', '{}', 'pending', 0, 0)`.execute(a);
      await afterForeignDelay();
      const markers = [await changeMarker(a), await changeMarker(b)];

      // The worker's own: a claim, a lease renewed, the row marked sent, a retry scheduled on another row.
      const [claimed] = await claimDue(ctx, { limit: 1, leaseMs: 60_000, busy: new Set(), streamPrefixes: ['webhook:'] });
      expect(claimed).toBeDefined();
      expect(await renewLease(ctx, claimed!.id, claimed!.lease, 60_000)).toBe(true);
      expect(await markSent(ctx, claimed!.id, claimed!.lease)).toBe(true);
      await createWriter(a).run(async (trx) => void (await sql`update outbox set last_error = 'x' where company_id = 1`.execute(trx)));
      await afterForeignDelay();
      expect([await changeMarker(a), await changeMarker(b)]).toEqual(markers);

      // A change a read shows: at once in the process that made it, within the delay in the other.
      await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U0')`.execute(a);
      const moved = await changeMarker(a);
      expect(moved).not.toBe(markers[0]);
      await afterForeignDelay();
      const heard = await changeMarker(b);
      expect(heard).not.toBe(markers[1]);

      // Written by something that is not statusbot (a sqlite3 shell): the database's own triggers tell.
      const shell = new BetterSqlite3(database!.path);
      try {
        shell.prepare(`update companies set name = 'Acme Inc' where id = 1`).run();
        await afterForeignDelay();
        expect(await changeMarker(a)).not.toBe(moved);
        expect(await changeMarker(b)).not.toBe(heard);
        const quiet = [await changeMarker(a), await changeMarker(b)];
        shell.prepare(`update outbox set attempts = attempts + 1`).run();
        await afterForeignDelay();
        expect([await changeMarker(a), await changeMarker(b)]).toEqual(quiet);
      } finally {
        shell.close();
      }
    },
  );

  it.skipIf(TEST_ENGINE !== 'postgres')('does not move on PostgreSQL for a chat request taken, which no read shows', async () => {
    const [a, b] = await twoProcessesOnOneDatabase();
    const ctx = createDomainContext({ db: a, clock: systemClock, publicUrl: 'http://localhost:8080' });
    const heard = await changeMarker(b);
    await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U0')`.execute(a);
    await waitUntil(async () => (await changeMarker(b)) !== heard);
    const marker = await changeMarker(b);

    const seen = { platform: 'slack' as const, digest: 'd1', expiresAt: Date.now() + 300_000 };
    expect(await takeSignedRequest(ctx, seen)).toBe(true);
    expect(await takeSignedRequest(ctx, seen)).toBe(false);
    // A later commit that b must hear: once heard, the requests taken before it would have been heard too.
    await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U1')`.execute(a);
    await waitUntil(async () => (await changeMarker(b)) !== marker);
    // One step (`g<n>` to `g<n+1>`): that commit's, none for the requests taken.
    const generation = (m: string) => Number(/^g(\d+)$/.exec(m)![1]);
    expect(generation(await changeMarker(b))).toBe(generation(marker) + 1);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from seen_chat_requests`.execute(b);
    expect(rows[0]!.n).toBe(1);
  });

  it.skipIf(TEST_ENGINE !== 'postgres')(
    'does not move on PostgreSQL for delivery bookkeeping, in any process, and replicas still say they saw it',
    async () => {
      const [a, b] = await twoProcessesOnOneDatabase();
      const ctx = createDomainContext({ db: a, clock: systemClock, publicUrl: 'http://localhost:8080' });
      const generation = (m: string) => Number(/^g(\d+)$/.exec(m)![1]);
      await sql`insert into outbox (company_id, stream, event, payload, state, next_attempt_at, created_at)
        values (1, 'webhook:1', 'incident.created', '{}', 'pending', 0, 0)`.execute(a);
      const heard = [await changeMarker(a), await changeMarker(b)];
      await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U0')`.execute(a);
      // Both hear it: a its own commit too, on its listening connection, which a busy machine may deliver later than b's.
      // A commit made outside the writer moves a twice, once when its statement is done and once when it is heard, in
      // either order.
      await waitUntil(async () => generation(await changeMarker(a)) === generation(heard[0]!) + 2 && (await changeMarker(b)) !== heard[1]);
      const markers = [await changeMarker(a), await changeMarker(b)];

      // What b says it saw, as writers waiting for it hear it.
      const listener = new pg.Client({ connectionString: database!.path });
      await listener.connect();
      const said: string[] = [];
      listener.on('notification', (n) => said.push(n.payload ?? ''));
      await listener.query(`listen ${SEEN_CHANNEL}`);
      try {
        // The worker's own: a claim, a lease renewed, the row marked sent.
        const [claimed] = await claimDue(ctx, { limit: 1, leaseMs: 60_000, busy: new Set(), streamPrefixes: ['webhook:'] });
        expect(claimed).toBeDefined();
        expect(await renewLease(ctx, claimed!.id, claimed!.lease, 60_000)).toBe(true);
        expect(await markSent(ctx, claimed!.id, claimed!.lease)).toBe(true);
        expect(await changeMarker(a)).toBe(markers[0]);
        // A write of the outbox alone by any other unit: its writer waits for b, and b answers.
        let xid = '';
        await createWriter(a).run(async (trx) => {
          xid = (await sql<{ x: string }>`select txid_current()::text as x`.execute(trx)).rows[0]!.x;
          await sql`update outbox set last_error = 'x' where company_id = 1`.execute(trx);
        });
        await waitUntil(() => said.some((p) => p.split(' ').slice(1).includes(xid)));
      } finally {
        await listener.end();
      }
      // A later commit b must hear: one step, that commit's, none for the bookkeeping before it.
      await sql`insert into chat_admins (company_id, platform, user_id) values (1, 'slack', 'U1')`.execute(a);
      await waitUntil(async () => (await changeMarker(b)) !== markers[1]);
      expect(generation(await changeMarker(b))).toBe(generation(markers[1]!) + 1);
    },
  );
});
