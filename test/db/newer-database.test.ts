import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { runCli } from '../cli/run-cli.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

let dir: string;
let database: TestDatabase;

/** What a later version leaves: a migration this version does not have, recorded as applied. */
async function migrateAheadOfThisVersion(path: string): Promise<void> {
  const db = openDatabase({ path });
  try {
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_later_version', '2026-12-01T00:00:00.000Z')`.execute(db);
  } finally {
    await db.destroy();
  }
}

async function appliedMigrations(path: string): Promise<number> {
  const db = openDatabase({ path });
  try {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from kysely_migration`.execute(db);
    return Number(rows[0]!.n);
  } finally {
    await db.destroy();
  }
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-newer-'));
  database = await createTestDatabase();
  await migrateAheadOfThisVersion(database.path);
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a database migrated by a later version (a rollback without restoring the backup)', () => {
  const ONE_LINE =
    /^statusbot: this database was migrated by a newer statusbot \(migration 9999_from_a_later_version is unknown to this version\); run that version, or restore the backup taken before the upgrade\n$/;

  it.each([
    ['migrate', ['migrate']],
    ['serve', ['serve', '--port', '0', '--host', '127.0.0.1']],
  ])('%s refuses it in one line and changes nothing', async (_name, args) => {
    const before = await appliedMigrations(database.path);
    const res = await runCli([...args, '--db', database.path], { cwd: dir });
    expect(res.stderr).toMatch(ONE_LINE);
    expect(res.code).toBe(1);
    expect(await appliedMigrations(database.path)).toBe(before);
  });
});
