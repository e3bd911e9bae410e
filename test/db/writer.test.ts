import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createWriter } from '../../src/db/writer.js';

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-writer-'));
  db = openDatabase({ path: join(dir, 'w.db') });
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

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
    const keys = (await db.selectFrom('meta').select('key').orderBy('key').execute()).map((r) => r.key);
    expect(keys).toEqual(['a', 'c']);
  });

  it('answers a unit only after its commit is visible to another connection', async () => {
    const writer = createWriter(db);
    await writer.run(insertMeta('durable'));
    const other = openDatabase({ path: join(dir, 'w.db') });
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
    expect(await db.selectFrom('meta').select('key').execute()).toEqual([{ key: 'after' }]);
  });
});
