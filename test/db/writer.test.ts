import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createWriter } from '../../src/db/writer.js';
import { createTestDatabase } from '../helpers/test-database.js';
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
const writtenKeys = async () =>
  (await db.selectFrom('meta').select('key').where('key', '!=', 'changes').orderBy('key').execute()).map((r) => r.key);

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

  it('keeps serving after a batch fails as a whole', async () => {
    const writer = createWriter(db);
    await expect(writer.run(async (trx) => trx.insertInto('nope' as 'meta').values({ key: 'x', value: 'y' }).execute())).rejects.toThrow();
    await writer.run(insertMeta('after'));
    expect(await writtenKeys()).toEqual(['after']);
  });
});
