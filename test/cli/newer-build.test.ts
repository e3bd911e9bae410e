import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ROOT, spawnCli } from './run-cli.js';

let dir: string;
let database: TestDatabase;

/** The refusal docs/operations.md shows ("Rolling back"), for the migration this build lacks. */
const REFUSAL =
  'statusbot: this database was migrated by a newer statusbot (migration 9999_from_a_later_version is unknown to this version); run that version, or restore the backup taken before the upgrade\n';

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-newer-build-'));
  database = await createTestDatabase();
  const db = openDatabase({ path: database.path });
  try {
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_later_version', '2026-12-01T00:00:00.000Z')`.execute(db);
  } finally {
    await db.destroy();
  }
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('this build, started on a database a newer one migrated', () => {
  it('is refused in the words docs/operations.md shows', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    expect(docs).toContain(REFUSAL.replace('9999_from_a_later_version', '0015_…'));
  });

  it.each([
    ['serve', ['serve', '--port', '0', '--host', '127.0.0.1']],
    ['migrate', ['migrate']],
    ['key list', ['key', 'list', '--company', 'Acme']],
    ['jobs run', ['jobs', 'run', 'retention']],
  ])(
    '%s prints the one-line refusal the docs show, no stack, and exits 1',
    async (_name, args) => {
      const res = await spawnCli([...args, '--db', database.path], { cwd: dir });
      expect(res.stderr).toBe(REFUSAL);
      expect(res.code).toBe(1);
      expect(res.stdout).not.toMatch(/\n\s+at /);
    },
    90_000,
  );
});
