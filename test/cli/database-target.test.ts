import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { README_EXAMPLE_CONFIG } from '../helpers/test-server.js';
import { TEST_ENGINE } from '../helpers/test-database.js';
import { runCli, spawnCli } from './run-cli.js';

// What --db names is read before any database is opened: the same on both engines.
const describeOnce = TEST_ENGINE === 'sqlite' ? describe : describe.skip;

let dir: string;
const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(args, { cwd: dir, env });
const FORMS = 'give it a SQLite file (a path, file:PATH or sqlite:PATH) or a PostgreSQL URL (postgres://… or postgresql://…)';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-db-target-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeOnce('--db and STATUSBOT_DB', () => {
  it.each([
    ['--db mysql://x', ['--db', 'mysql://x'], {}, '--db mysql://x: statusbot has no mysql: databases'],
    ['STATUSBOT_DB=mysql://x', [], { STATUSBOT_DB: 'mysql://x' }, 'STATUSBOT_DB mysql://x: statusbot has no mysql: databases'],
    ['--db ""', ['--db', ''], {}, '--db is empty'],
    ['STATUSBOT_DB=""', [], { STATUSBOT_DB: '' }, 'STATUSBOT_DB is empty'],
    ['--db file://host/x.db', ['--db', 'file://host/x.db'], {}, '--db file://host/x.db names a host'],
  ])('%s is refused in one line with the usage (exit 2), and no file is made', async (_name, args, env, said) => {
    for (const command of [['migrate'], ['key', 'list', '--company', 'Acme']]) {
      const res = await cli([...command, ...args], env);
      expect(res.code).toBe(2);
      expect(res.stderr.split('\n')[0]).toBe(
        `statusbot: ${said}${said.endsWith('host') ? '; a SQLite file is local: file:///ABSOLUTE/PATH or file:RELATIVE/PATH' : `; ${FORMS}`}`,
      );
      expect(res.stderr).toContain(`Usage: statusbot ${command.slice(0, command[0] === 'key' ? 2 : 1).join(' ')}`);
      expect(res.stdout).toBe('');
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('takes a SQLite file as a path, file:PATH, file:///PATH or sqlite:PATH', async () => {
    for (const [given, file] of [
      ['a.db', 'a.db'],
      ['file:b.db', 'b.db'],
      [`file://${join(dir, 'c.db')}`, 'c.db'],
      ['sqlite:d.db', 'd.db'],
    ] as const) {
      const res = await cli(['migrate', '--db', given]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.split('\n')[0]).toBe(`created a new database at ${join(dir, file)}`);
      expect(existsSync(join(dir, file))).toBe(true);
    }
    expect(
      readdirSync(dir)
        .filter((f) => !/-(wal|shm)$/.test(f))
        .sort(),
    ).toEqual(['a.db', 'b.db', 'c.db', 'd.db']);
  });

  it('migrate says once that it made a new database, and not again', async () => {
    const first = await cli(['migrate', '--db', 'data/statusbot.db']);
    expect(first.stdout).toMatch(/^created a new database at .*\/data\/statusbot\.db\napplied 0001_init, /);
    const second = await cli(['migrate', '--db', 'data/statusbot.db']);
    expect(second.stdout).toBe('the database is up to date\n');
  });

  it('every command but serve and migrate refuses a missing database file and makes nothing', async () => {
    writeFileSync(join(dir, 'statusbot.yml'), README_EXAMPLE_CONFIG);
    const missing = join(dir, 'statusbot.dbb');
    for (const command of [
      ['apply', '--config', 'statusbot.yml'],
      ['jobs', 'run', 'retention'],
      ['key', 'create', '--company', 'Acme'],
      ['incidents', 'list'],
      ['feeds', 'check'],
      ['monitors', 'list'],
      ['db', 'backup', 'backup.db'],
    ]) {
      const res = await cli([...command, '--db', 'statusbot.dbb']);
      expect(res.stderr, command.join(' ')).toBe(
        `statusbot: there is no database at ${missing}; pass the one the server uses with --db (or STATUSBOT_DB), or make a new one with statusbot migrate --db ${missing}\n`,
      );
      expect(res.code).toBe(1);
    }
    expect(readdirSync(dir)).toEqual(['statusbot.yml']);
  });

  it('a command without --db pays no heed to STATUSBOT_DB', async () => {
    const res = await cli(['discord', 'register'], { STATUSBOT_DB: 'mysql://x' });
    expect(res.stderr).not.toContain('mysql');
  });
});

describeOnce('a process of its own', () => {
  it('refuses --db mysql://x with exit 2 and leaves no ./mysql:/x behind', async () => {
    const res = await spawnCli(['migrate', '--db', 'mysql://x'], { cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr.split('\n')[0]).toBe(`statusbot: --db mysql://x: statusbot has no mysql: databases; ${FORMS}`);
    expect(readdirSync(dir)).toEqual([]);
  });
});
