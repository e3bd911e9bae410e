import { readdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { waitUntil } from '../helpers/wait-until.js';

let database: TestDatabase | undefined;
let db: Db | undefined;
afterEach(async () => {
  await db?.destroy();
  db = undefined;
  await database?.drop();
  database = undefined;
});

describe.skipIf(TEST_ENGINE !== 'sqlite')("a serving process's SQLite checkpoints", () => {
  it('are made beside its connection, not in its commits, and its writes still reach the database file', async () => {
    database = await createTestDatabase();
    db = openDatabase({ path: database.path, checkpointInBackground: true });
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(rows[0]!.wal_autocheckpoint).toBe(0);
    const before = statSync(database.path).size;
    const text = 'x'.repeat(4000);
    // About 4 MB, past the 1,000 pages at which a commit would otherwise copy the log back itself.
    for (let batch = 0; batch < 10; batch++) {
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 100; i++) {
          await sql`insert into meta (key, value) values (${`bulk-${batch}-${i}`}, ${text})`.execute(trx);
        }
      });
    }
    await waitUntil(() => statSync(database!.path).size >= before + 4_000_000, { timeoutMs: 5_000 });
    const { rows: found } = await sql<{ n: number }>`select count(*) as n from meta where key like 'bulk-%'`.execute(db);
    expect(found[0]!.n).toBe(1000);
  });

  it('are over once the database is closed: nothing is left beside the file, at once', async () => {
    database = await createTestDatabase();
    db = openDatabase({ path: database.path, checkpointInBackground: true });
    await sql`insert into meta (key, value) values ('k', 'v')`.execute(db);
    await db.destroy();
    db = undefined;
    // The last connection to close copies the log back and removes it and the shared-memory file.
    expect(readdirSync(dirname(database.path)).sort()).toEqual(['statusbot.db']);
  });
});
