import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { TEST_ENGINE, createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_BOARD, startTestServer } from '../helpers/test-server.js';
import { runCli } from './run-cli.js';

let dir: string;
let database: TestDatabase;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-db-files-'));
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { cwd: dir });

/** What a command needs beside --db to reach its database. */
function argsOf(name: string, backup: string): string[] {
  const config = join(dir, 'statusbot.yml');
  if (!existsSync(config)) writeFileSync(config, 'public_url: http://localhost:8080\n');
  const extra: Record<string, string[]> = {
    serve: ['--port', '0'],
    apply: ['--config', config],
    'key create': ['--company', 'Acme'],
    'key list': ['--company', 'Acme'],
    'key revoke': ['1'],
    'db backup': [join(dir, 'never-written.db')],
    'db restore': [backup],
    'jobs run': ['retention'],
  };
  return [...name.split(' '), ...(extra[name] ?? [])];
}

describe('--db that cannot hold a database', () => {
  it('every command that takes --db fails at once, in one line naming the path, exit code 1', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'not a database\n'.repeat(100));
    const sqlite = join(dir, 'for-a-backup.db');
    const backup = join(dir, 'a-backup.db');
    expect((await cli(['migrate', '--db', sqlite])).code).toBe(0);
    expect((await cli(['db', 'backup', backup, '--db', sqlite])).code).toBe(0);
    // /proc takes no new names (mkdir's recursive mode used to spin there); /sys takes no files, whoever asks.
    const bad = ['/proc/nope/x.db', folder, notDb, '/sys/statusbot.db'];
    const commands = COMMANDS.filter((c) => c.options.includes('db'));
    expect(commands.length).toBeGreaterThanOrEqual(14);
    for (const command of commands) {
      for (const path of bad) {
        const began = performance.now();
        const res = await cli([...argsOf(command.name, backup), '--db', path]);
        const what = `statusbot ${command.name} --db ${path}: ${res.stderr}`;
        expect(res.code, what).toBe(1);
        expect(res.stderr.trimEnd().split('\n'), what).toEqual([expect.stringMatching(/^statusbot: .+/)]);
        expect(res.stderr, what).toContain(path);
        expect(performance.now() - began, what).toBeLessThan(2_000);
      }
    }
  });
});

describe.skipIf(TEST_ENGINE !== 'postgres')('db backup and db restore on PostgreSQL', () => {
  it('point to pg_dump and pg_restore, without the password', async () => {
    const url = 'postgres://statusbot:s3cret@db.internal:5433/statusbot';
    const backup = await cli(['db', 'backup', 'statusbot.dump', '--db', url]);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toBe(
      `statusbot: db backup copies SQLite files; back up PostgreSQL with pg_dump: pg_dump --format=custom --file=${join(dir, 'statusbot.dump')} --host=db.internal --port=5433 --username=statusbot --dbname=statusbot\n`,
    );
    const restore = await cli(['db', 'restore', 'statusbot.dump', '--db', url]);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toBe(
      `statusbot: db restore puts SQLite files in place; restore PostgreSQL with pg_restore into an empty schema, the server stopped: psql -v ON_ERROR_STOP=1 --host=db.internal --port=5433 --username=statusbot --dbname=statusbot -c 'set client_min_messages = warning; drop schema public cascade; create schema public' && pg_restore --no-owner --exit-on-error --single-transaction --host=db.internal --port=5433 --username=statusbot --dbname=statusbot ${join(dir, 'statusbot.dump')}\n`,
    );
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('db backup and db restore on SQLite', () => {
  it('backs up a database a server is writing: the copy is whole and holds every write acknowledged before it began', async () => {
    const live = join(dir, 'live.db');
    const s = await startTestServer({ dbPath: live });
    const acknowledged: number[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: `Write ${acknowledged.length}` } });
        expect(res.status).toBe(201);
        acknowledged.push(Number(res.body.data.id));
      }
    })();
    try {
      while (acknowledged.length < 20) await new Promise((resolve) => setImmediate(resolve));
      const before = [...acknowledged];
      const file = join(dir, 'live-backup.db');
      const res = await cli(['db', 'backup', file, '--db', live]);
      expect(res).toEqual({ code: 0, stdout: `backed up ${live} to ${file}\n`, stderr: '' });
      const written = acknowledged.length;
      expect(written).toBeGreaterThan(before.length);

      const copy = new BetterSqlite3(file, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const ids = new Set(copy.prepare('select id from incidents').pluck().all() as number[]);
        expect(before.filter((id) => !ids.has(id))).toEqual([]);
      } finally {
        copy.close();
      }
      // A single file: nothing beside it, nothing half-written left in the folder.
      expect(readdirSync(dir).filter((f) => f.includes('live-backup'))).toEqual(['live-backup.db']);

      const again = await cli(['db', 'backup', file, '--db', live]);
      expect(again).toEqual({ code: 1, stdout: '', stderr: `statusbot: ${file} exists; name a new file, or pass --force to replace it\n` });
      expect((await cli(['db', 'backup', file, '--force', '--db', live])).code).toBe(0);

      // The server has the database open: a restore over it is refused, and changes nothing.
      const refused = await cli(['db', 'restore', file, '--db', live]);
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr: `statusbot: ${live} is in use (a running statusbot, or another command): stop the server first, then restore\n`,
      });
    } finally {
      writing = false;
      await writer;
      await s.stop();
    }
  });

  it('restores a backup in place of a stopped server database in one step, keeping the one it replaced', async () => {
    const target = join(dir, 'restore-target.db');
    const backup = join(dir, 'restore-source.db');
    const first = await startTestServer({ dbPath: target });
    await first.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'In the backup' } });
    await first.stop();
    expect((await cli(['db', 'backup', backup, '--db', target])).code).toBe(0);
    const second = await startTestServer({ dbPath: target });
    await second.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'After the backup' } });
    await second.stop();

    const res = await cli(['db', 'restore', backup, '--db', target]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      new RegExp(`^restored ${backup} \\(migration \\d{4}_\\w+\\) to ${target}; the database it replaced is kept as ${target}\\.before-restore-[\\dT-]+Z\\n$`),
    );
    const kept = res.stdout.trim().split(' kept as ')[1]!;
    const titles = (path: string) => {
      const db = new BetterSqlite3(path, { readonly: true });
      try {
        return db.prepare('select title from incidents order by id').pluck().all();
      } finally {
        db.close();
      }
    };
    expect(titles(target)).toContain('In the backup');
    expect(titles(target)).not.toContain('After the backup');
    expect(titles(kept)).toContain('After the backup');
    const restarted = await startTestServer({ dbPath: target });
    try {
      expect((await restarted.api('GET', `/api/v2/boards/${ACME_BOARD}`)).status).toBe(200);
    } finally {
      await restarted.stop();
    }
  });

  it('refuses a file that is not a statusbot database, or one a newer statusbot made, and changes nothing', async () => {
    const target = join(dir, 'untouched.db');
    const notOurs = join(dir, 'other-app.db');
    const other = new BetterSqlite3(notOurs);
    other.exec('create table notes (body text)');
    other.close();
    const res = await cli(['db', 'restore', notOurs, '--db', target]);
    expect(res).toEqual({ code: 1, stdout: '', stderr: `statusbot: ${notOurs} is not a statusbot database\n` });

    const newer = join(dir, 'newer.db');
    expect((await cli(['migrate', '--db', newer])).code).toBe(0);
    const db = new BetterSqlite3(newer);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString());
    db.close();
    const future = await cli(['db', 'restore', newer, '--db', target]);
    expect(future).toEqual({
      code: 1,
      stdout: '',
      stderr: `statusbot: ${newer} was made by a newer statusbot (migration 9999_from_the_future); restore it with that version\n`,
    });
    expect(existsSync(target)).toBe(false);
  });
});
