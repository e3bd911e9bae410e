import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { runCli } from '../cli/run-cli.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';

const cli = (args: string[]) => runCli(args, { cwd: tmpdir() });

describe.skipIf(TEST_ENGINE !== 'postgres')('statusbot db copy', () => {
  let dir: string;
  let sqlitePath: string;
  let target: TestDatabase;
  let incidentId: string;
  let before: { incident: unknown; board: unknown };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'statusbot-copy-'));
    sqlitePath = join(dir, 'statusbot.db');
    const s = await startTestServer({ dbPath: sqlitePath });
    try {
      const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Copied', description: 'first' } });
      incidentId = created.body.data.id;
      await s.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { description: 'second', resolution_stage: 'identified' } });
      before = {
        incident: (await s.api('GET', `/api/v2/incidents/${incidentId}`)).body,
        board: (await s.api('GET', '/api/v2/boards/5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01')).body,
      };
    } finally {
      await s.stop();
    }
    target = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await target?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says first what it needs; refuses a source a server uses before writing anything, so that it works once the server is stopped', async () => {
    const s = await startTestServer({ dbPath: sqlitePath });
    try {
      const res = await cli(['db', 'copy', '--from', sqlitePath, '--to', target.path]);
      expect(res).toEqual({
        code: 1,
        stdout: 'db copy needs a source no server writes to and an empty target; the target gets everything or nothing\n',
        stderr: `statusbot: ${sqlitePath} is in use (a running statusbot, or another command); stop the server that uses ${sqlitePath}, or copy from a backup (statusbot db backup FILE --db ${sqlitePath}, then db copy --from FILE)\n`,
      });
    } finally {
      await s.stop();
    }
    // Nothing was written: not even the schema.
    const db = openDatabase({ path: target.path });
    try {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = current_schema()`.execute(db);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it('copies everything into an empty PostgreSQL database, shows progress, and compares the counts', async () => {
    const res = await cli(['db', 'copy', '--from', sqlitePath, '--to', target.path]);
    expect(res.code, res.stderr).toBe(0);
    // Progress is drawn on a terminal only (test/cli/progress.unit.test.ts): a pipe gets the result alone.
    expect(res.stderr).toBe('');
    expect(res.stdout.split('\n')[0]).toBe('db copy needs a source no server writes to and an empty target; the target gets everything or nothing');
    expect(res.stdout).toMatch(/^incident_updates +\d+ +\d+$/m);
    expect(res.stdout).not.toContain('DIFFERENT');
    expect(res.stdout.trim().split('\n').at(-1)).toBe('copied: every table holds the same number of rows on both sides');

    // The copy serves the same answers, and goes on from there.
    const s = await startTestServer({ dbPath: target.path });
    try {
      expect((await s.api('GET', `/api/v2/incidents/${incidentId}`, { key: ACME_KEY })).body).toEqual(before.incident);
      expect((await s.api('GET', '/api/v2/boards/5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01')).body).toEqual(before.board);
      const next = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'After the copy' } });
      expect(next.status).toBe(201);
      expect(Number(next.body.data.id)).toBeGreaterThan(Number(incidentId));
    } finally {
      await s.stop();
    }
  });

  it('refuses a target that holds data, and changes nothing', async () => {
    const res = await cli(['db', 'copy', '--from', sqlitePath, '--to', target.path]);
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^statusbot: the target is not empty: companies holds \d+ rows; copy into a new database \(createdb NAME\), or empty this one: psql URL -c 'drop schema public cascade; create schema public'$/,
      ),
    ]);
  });

  it('names what is missing', async () => {
    expect((await cli(['db', 'copy', '--to', target.path])).code).toBe(2);
    const missing = await cli(['db', 'copy', '--from', join(dir, 'nope.db'), '--to', target.path]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('there is no database file');
  });
});
