import { statSync } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createWriter, deferInsert } from '../../src/db/writer.js';
import { lockService } from '../../src/db/locks.js';
import { CHANGES_CHANNEL, LISTENER_NAME_PREFIX } from '../../src/db/change-feed.js';
import { waitUntil } from '../helpers/wait-until.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

let database: TestDatabase;
let db: Db;
beforeEach(async () => {
  database = await createTestDatabase();
  db = openDatabase({ path: database.path });
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  await database.drop();
});

/** The keys units wrote: all but the rows the migrations put in `meta`. */
const writtenKeys = async () => (await db.selectFrom('meta').select('key').where('key', '!=', 'changes').orderBy('key').execute()).map((r) => r.key);

const insertMeta = (key: string) => (trx: Db) => trx.insertInto('meta').values({ key, value: 'v' }).execute();

describe('createWriter', () => {
  it('commits units that arrive together in one transaction, undoing only the one that fails', async () => {
    const writer = createWriter(db);
    const results = await Promise.allSettled([
      writer.run(insertMeta('a')),
      writer.run(async (trx) => {
        await insertMeta('b')(trx);
        throw new Error('unit b fails after writing');
      }),
      writer.run(insertMeta('c')),
      writer.run(insertMeta('a')), // a duplicate primary key: fails in SQLite
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(await writtenKeys()).toEqual(['a', 'c']);
  });

  it('answers a unit only after its commit is visible to another connection', async () => {
    const writer = createWriter(db);
    await writer.run(insertMeta('durable'));
    const other = openDatabase({ path: database.path });
    try {
      expect(await other.selectFrom('meta').select('key').where('key', '=', 'durable').executeTakeFirst()).toEqual({ key: 'durable' });
    } finally {
      await other.destroy();
    }
  });

  it.skipIf(TEST_ENGINE !== 'sqlite')('inserts the rows units leave to the commit within their transaction, none of a unit that failed', async () => {
    const row = (action: string) => ({ at: 0, company_id: null, actor: 'cli', action, target_type: 'test', target_id: '1', request_id: null, changes: '{}' });
    const actions = async () => (await db.selectFrom('audit_events').select('action').orderBy('id').execute()).map((r) => r.action);
    // Outside the writer's transaction, nobody takes the row: the caller inserts it.
    expect(deferInsert(db, 'audit_events', row('outside'))).toBe(false);
    const writer = createWriter(db);
    const leave = (action: string, fail = false) =>
      writer.run(async (trx) => {
        expect(deferInsert(trx, 'audit_events', row(action))).toBe(true);
        await insertMeta(action)(trx);
        if (fail) throw new Error(`unit ${action} fails after writing`);
      });
    const results = await Promise.allSettled([leave('a'), leave('b', true), leave('c'), leave('d')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(await actions()).toEqual(['a', 'c', 'd']);
    expect(await writtenKeys()).toEqual(['a', 'c', 'd']);
    // A unit in a transaction of its own: its row when it succeeds, none when it fails.
    await leave('e');
    await expect(leave('f', true)).rejects.toThrow('unit f fails');
    expect(await actions()).toEqual(['a', 'c', 'd', 'e']);
  });

  it('syncs every commit that holds a durable unit to disk, and bookkeeping alone not', async () => {
    const writer = createWriter(db);
    /** How the commit of the unit's transaction reaches the disk, read inside it. */
    const syncOf = async (trx: Db): Promise<string> => {
      if (TEST_ENGINE === 'postgres') return (await sql<{ s: string }>`select current_setting('synchronous_commit') as s`.execute(trx)).rows[0]!.s;
      const level = (await sql<{ synchronous: number }>`pragma synchronous`.execute(trx)).rows[0]!.synchronous;
      return level === 2 ? 'on' : 'off';
    };
    expect(await writer.run(syncOf)).toBe('on');
    expect(await writer.run(syncOf, { durable: false })).toBe('off');
    // Arriving together: the durable unit is synced whatever shares its transaction; on SQLite they share one.
    const [durable, along] = await Promise.all([writer.run(syncOf), writer.run(syncOf, { durable: false })]);
    expect(durable).toBe('on');
    if (TEST_ENGINE === 'sqlite') expect(along).toBe('on');
    expect(await writer.run(syncOf)).toBe('on');
    expect(await writer.run(async (trx) => [await syncOf(trx), (await insertMeta('kept')(trx)).length])).toEqual(['on', 1]);
    expect(await writtenKeys()).toEqual(['kept']);
  });

  it('keeps serving after a batch fails as a whole', async () => {
    const writer = createWriter(db);
    await expect(
      writer.run(async (trx) =>
        trx
          .insertInto('nope' as 'meta')
          .values({ key: 'x', value: 'y' })
          .execute(),
      ),
    ).rejects.toThrow();
    await writer.run(insertMeta('after'));
    expect(await writtenKeys()).toEqual(['after']);
  });
});

describe.skipIf(TEST_ENGINE !== 'postgres')('createWriter on PostgreSQL', () => {
  // Two connections: one transaction at a time, so the units queued behind the first share the next.
  let small: Db;
  beforeEach(() => {
    small = openDatabase({ path: database.path, poolSize: 2 });
  });
  afterEach(async () => {
    await small.destroy();
  });

  // Companies, not `meta`: the other listening database hears of changes to them, as replicas do, and says so at once.
  const insertCompany = (name: string) => (trx: Db) => trx.insertInto('companies').values({ name, plan: 'business', notify_on: '[]', created_at: 0 }).execute();
  const companyNames = async () => (await db.selectFrom('companies').select('name').orderBy('name').execute()).map((r) => r.name);
  const firstAlone = (writer: ReturnType<typeof createWriter>) => writer.run(insertCompany('first'));

  it('runs the units of a shared transaction again, each alone, when one of them fails', async () => {
    const writer = createWriter(small);
    const results = await Promise.allSettled([
      firstAlone(writer),
      writer.run(insertCompany('a')),
      writer.run(async (trx) => {
        await insertCompany('b')(trx);
        throw new Error('unit b fails after writing');
      }),
      writer.run(insertCompany('c')),
      writer.run(insertCompany('a')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(await companyNames()).toEqual(['a', 'c', 'first']);
  });

  it('runs a unit whose service another transaction holds in a later transaction, without holding up the others', async () => {
    const { id: company } = await db
      .insertInto('companies')
      .values({ name: 'Acme', plan: 'business', notify_on: '[]', created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const id of [1, 2]) {
      await db
        .insertInto('services')
        .values({
          id,
          urlname: `s${id}`,
          name: `S${id}`,
          status_page_url: null,
          company_id: company,
          demo: null,
          feed_kind: null,
          feed_url: null,
          created_at: 0,
        })
        .execute();
    }
    const holder = await db.startTransaction().execute();
    await sql`select id from services where id = 2 for update`.execute(holder);
    const writer = createWriter(small);
    const done: string[] = [];
    const unit = (service: number, name: string) => async (trx: Db) => {
      await lockService(trx, service);
      await insertCompany(name)(trx);
      done.push(name);
    };
    const first = firstAlone(writer);
    const free = writer.run(unit(1, 'free'));
    const held = writer.run(unit(2, 'held'));
    await free;
    expect(done).toEqual(['free']);
    await holder.commit().execute();
    await Promise.all([first, held]);
    expect(done).toEqual(['free', 'held']);
    expect(await companyNames()).toEqual(['Acme', 'first', 'free', 'held']);
  });

  it('goes on with the next transaction while a replica is slow to say it heard the last, and answers each unit only then', async () => {
    // A replica that listens under the replicas' name and never says what it heard (hung, or far behind).
    const silent = new pg.Client({ connectionString: database.path });
    await silent.connect();
    try {
      await silent.query(`listen ${CHANGES_CHANNEL}`);
      await silent.query('select set_config($1, $2, false)', ['application_name', `${LISTENER_NAME_PREFIX}silent`]);
      const writer = createWriter(small); // one transaction at a time
      const answered: string[] = [];
      const write = (name: string) => writer.run(insertCompany(name)).then(() => void answered.push(name));
      const a = write('a');
      await waitUntil(async () => (await companyNames()).includes('a'));
      const b = write('b');
      // b committed while a still waits for the silent replica's word: the one transaction at a time was not held by a.
      await waitUntil(async () => (await companyNames()).includes('b'));
      expect(answered).toEqual([]);
      // Answered once the wait for the silent replica ends (its cap), each after its own commit.
      await Promise.all([a, b]);
      expect(answered).toEqual(['a', 'b']);
    } finally {
      await silent.end();
    }
  });

  it('runs a unit again when PostgreSQL undoes it to break a deadlock', async () => {
    for (const name of ['A', 'B']) await insertCompany(name)(db);
    const lock = (trx: Db, name: string) => sql`select id from companies where name = ${name} for update`.execute(trx);
    const other = await db.startTransaction().execute();
    // PostgreSQL undoes the transaction whose deadlock check finds the cycle: `other` checks only after an hour, the unit at once.
    await sql`set local deadlock_timeout = '1h'`.execute(other);
    const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(other)).rows[0]!;
    await lock(other, 'A');
    const writer = createWriter(small);
    let attempts = 0;
    let unitHoldsB!: () => void;
    const heldB = new Promise<void>((resolve) => (unitHoldsB = resolve));
    let otherWaitsForB!: () => void;
    const otherWaits = new Promise<void>((resolve) => (otherWaitsForB = resolve));
    let otherHoldsB!: () => void;
    const otherHasB = new Promise<void>((resolve) => (otherHoldsB = resolve));
    const unit = writer.run(async (trx) => {
      attempts++;
      await sql`set local deadlock_timeout = '10ms'`.execute(trx);
      // The second attempt comes once `other` has B (granted when the first was undone), so it waits for
      // `other` to commit instead of taking B first and making the same cycle again.
      if (attempts === 2) await otherHasB;
      await lock(trx, 'B');
      if (attempts === 1) {
        unitHoldsB();
        await otherWaits;
      }
      await lock(trx, 'A');
      await insertCompany('C')(trx);
      return attempts;
    });
    // The order is set by the test, not by timing: the unit holds B, `other` waits for B, then the unit asks for A.
    await heldB;
    const otherGetsB = lock(other, 'B');
    await waitUntil(
      async () =>
        (await sql<{ wait: string | null }>`select wait_event_type as wait from pg_stat_activity where pid = ${pid}`.execute(db)).rows[0]?.wait === 'Lock',
      { what: 'the other transaction to wait for B' },
    );
    otherWaitsForB();
    await otherGetsB;
    otherHoldsB();
    await other.commit().execute();
    expect(await unit).toBe(2);
    expect(await companyNames()).toEqual(['A', 'B', 'C']);
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('the SQLite write-ahead log', () => {
  it('is copied into the database in small steps: the log file stays under 1 MB through thousands of commits', async () => {
    const writer = createWriter(db);
    let largest = 0;
    // Rows of 2 KB, one commit each: SQLite's own default (1,000 pages) lets the log grow to about 4 MB.
    const row = (i: number) => ({ key: `wal-${i}`, value: 'x'.repeat(2048) });
    for (let i = 0; i < 3_000; i++) {
      await writer.run((trx) => trx.insertInto('meta').values(row(i)).execute());
      if (i % 100 === 99) largest = Math.max(largest, statSync(`${database.path}-wal`).size);
    }
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThan(1024 * 1024);
  });
});
