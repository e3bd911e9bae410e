import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { TEST_ENGINE } from '../helpers/test-database.js';
import { README_EXAMPLE_CONFIG } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { runCli, startCli } from './run-cli.js';
import type { Running } from './run-cli.js';

let dir: string;
let dbPath: string;
const running: Running[] = [];
const servers: Server[] = [];

const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(args, { cwd: dir, env });
const oneLine = (stderr: string) => stderr.trimEnd().split('\n');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-mistakes-'));
  dbPath = join(dir, 'statusbot.db');
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** A port some other program holds, on every IPv4 address. */
async function portInUse(): Promise<number> {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '0.0.0.0', resolve));
  servers.push(other);
  return (other.address() as AddressInfo).port;
}

/** Text a started server prints after its start line (which may take a while on a busy machine): waited for once it listens. */
async function printed(s: Running, what: string, text: string): Promise<void> {
  await s.listening();
  await waitUntil(() => s.out.stdout.includes(text), { what });
}

async function companies(path: string): Promise<number> {
  const db = openDatabase({ path });
  try {
    return Number(
      (
        await db
          .selectFrom('companies')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  } finally {
    await db.destroy();
  }
}

// These run the CLI on SQLite files: once is enough.
describe.skipIf(TEST_ENGINE !== 'sqlite')('mistakes are answered by one line naming the cause and the way out', () => {
  it('serve on a port in use names the port and --port/PORT, and makes no demo company whose key it never shows', async () => {
    const port = await portInUse();
    for (const [args, env] of [
      [['serve', '--port', String(port), '--db', dbPath], {}],
      [['serve', '--db', dbPath], { PORT: String(port) }],
    ] as const) {
      const res = await cli([...args], env);
      expect(res.code, res.stderr).toBe(1);
      expect(oneLine(res.stderr)).toEqual([
        `statusbot: port ${port} is already in use (by another statusbot or another program); choose another with --port N (or PORT)`,
      ]);
    }
    expect(await companies(dbPath)).toBe(0);
    // Started on a free port, the first start that listens shows the demo key.
    const s = startCli(['serve', '--port', '0', '--db', dbPath], { cwd: dir });
    running.push(s);
    await printed(s, 'the demo key', 'shown this once');
  });

  it('--db on a folder, under a file, or on a file that is no database names the path', async () => {
    const folder = join(dir, 'data');
    mkdirSync(folder);
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'not a database, and long enough to have a header of its own '.repeat(10));
    for (const args of [['migrate'], ['apply', '--config', join(dir, 'x.yml')], ['serve', '--port', '0']]) {
      writeFileSync(join(dir, 'x.yml'), README_EXAMPLE_CONFIG);
      const res = await cli([...args, '--db', folder]);
      expect(res.code, args[0]).toBe(1);
      expect(oneLine(res.stderr)).toEqual([
        `statusbot: the database ${folder} is a folder; name a file in it, e.g. --db ${join(folder, 'statusbot.db')} (or STATUSBOT_DB)`,
      ]);
    }
    const under = join(file, 'statusbot.db');
    const res = await cli(['migrate', '--db', under]);
    expect(res.code).toBe(1);
    expect(oneLine(res.stderr)).toEqual([
      `statusbot: cannot create the database ${under}: ${file} is a file, not a folder; choose another path with --db (or STATUSBOT_DB)`,
    ]);
    const notDb = await cli(['migrate', '--db', file]);
    expect(notDb.code).toBe(1);
    expect(oneLine(notDb.stderr)).toEqual([`statusbot: ${file} is not a database file; pass the statusbot database with --db (or STATUSBOT_DB)`]);
  });

  it.skipIf(process.getuid?.() === 0)('--db in a folder this user may not write names it', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    const res = await cli(['migrate', '--db', join(locked, 'statusbot.db')]);
    expect(res.code).toBe(1);
    expect(oneLine(res.stderr)).toEqual([
      `statusbot: cannot create the database ${join(locked, 'statusbot.db')}: this user may not write ${locked}; choose another path with --db (or STATUSBOT_DB)`,
    ]);
  });

  it('LOG_LEVEL that is no level names the levels; a good one logs JSON lines, the demo key stays out of them', async () => {
    const wrong = await cli(['serve', '--port', '0', '--db', dbPath], { LOG_LEVEL: 'loud' });
    expect(wrong.code).toBe(1);
    expect(oneLine(wrong.stderr)).toEqual(['statusbot: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"']);
    expect(existsSync(dbPath)).toBe(false);

    const s = startCli(['serve', '--port', '0', '--db', dbPath], { cwd: dir, env: { LOG_LEVEL: 'debug' } });
    running.push(s);
    await s.listening();
    // The demo key has a line of its own (JSON too, in a pipe), written beside the log, not through it.
    const key = await waitUntil(() => /"demo_api_key":"(sb_[^"]+)"/.exec(s.out.stdout)?.[1], { what: 'the demo key' });
    const started = await waitUntil(
      () =>
        s.out.stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { level: number; msg: string })
          .find((r) => r.msg.startsWith('statusbot listening on http://0.0.0.0:')),
      { what: 'the start line' },
    );
    expect(started.level).toBe(30);
    const lines = s.out.stdout.split('\n').filter((l) => l !== '');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.filter((l) => l.includes(key)).map((l) => Object.keys(JSON.parse(l) as object))).toEqual([['level', 'time', 'msg', 'demo_api_key', 'try']]);
  });

  it('--host that is not an address of this machine, or no host at all, says so and how to choose', async () => {
    const foreign = await cli(['serve', '--port', '0', '--host', '192.0.2.1', '--db', dbPath]);
    expect(foreign.code).toBe(1);
    expect(oneLine(foreign.stderr)).toEqual([
      'statusbot: cannot listen on 192.0.2.1: it is not an address of this machine; choose one with --host (or HOST), or 0.0.0.0 for every address',
    ]);
    const unknown = await cli(['serve', '--port', '0', '--db', dbPath], { HOST: 'no-such-host.invalid' });
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toEqual([
      'statusbot: cannot listen on no-such-host.invalid: no such host; choose an address of this machine with --host (or HOST)',
    ]);
  });

  it('an option without its value, or one another command takes, names it', async () => {
    const noValue = await cli(['migrate', '--db']);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr.split('\n')[0]).toBe('statusbot: --db needs a value: --db FILE|URL');
    const other = await cli(['migrate', '--company', 'Acme', '--db', dbPath]);
    expect(other.code).toBe(2);
    expect(other.stderr.split('\n')[0]).toBe('statusbot: unknown option --company for migrate; it takes --db');
    expect(other.stderr).toContain('Usage: statusbot migrate');
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('--host and HOST', () => {
  it('choose the listening address, and the start line names the one bound', async () => {
    const s = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', dbPath], { cwd: dir });
    running.push(s);
    const { port } = await s.listening();
    await printed(s, 'the demo key', 'curl');
    // Not on a terminal, the start line is a JSON log record like every other.
    expect(s.out.stdout).toContain(`"msg":"statusbot listening on http://127.0.0.1:${port} (database ${dbPath})"}\n`);
    expect(s.out.stdout).toContain(`curl -s -H \\"Authorization: Bearer `);
    expect(s.out.stdout).toContain(` http://127.0.0.1:${port}/api/v2/boards/`);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await s.stop()).code).toBe(0);

    // PORT=0: a port of the system's choosing, not the default 8080.
    const byEnv = startCli(['serve', '--db', dbPath], { cwd: dir, env: { HOST: '127.0.0.1', PORT: '0' } });
    running.push(byEnv);
    const bound = await byEnv.listening();
    expect(bound.port).not.toBe(8080);
    expect(byEnv.out.stdout).toContain(`"msg":"statusbot listening on http://127.0.0.1:${bound.port} (database ${dbPath})"}\n`);
  });

  it('by default every IPv4 address, which the start line says', async () => {
    const s = startCli(['serve', '--port', '0', '--db', dbPath], { cwd: dir });
    running.push(s);
    const { port } = await s.listening();
    await printed(s, 'the demo key', 'curl');
    expect(s.out.stdout).toContain(`"msg":"statusbot listening on http://0.0.0.0:${port} (every IPv4 address of this machine; database ${dbPath})"}\n`);
    // The curl line names an address that a browser or curl on this machine reaches.
    expect(s.out.stdout).toContain(` http://localhost:${port}/api/v2/boards/`);
  });
});

// No database is opened: once is enough.
describe.skipIf(TEST_ENGINE !== 'sqlite')('help', () => {
  it('each command has its own, by --help and by help COMMAND', async () => {
    const general = await cli(['help']);
    const names = [...general.stdout.matchAll(/^ {2}statusbot (\[serve\]|[a-z]+(?: [a-z]+)?)/gm)].map((m) => m[1]!.replace('[serve]', 'serve'));
    expect(names).toEqual(expect.arrayContaining(['serve', 'migrate', 'apply', 'key create', 'key list', 'key revoke', 'db copy', 'jobs run']));
    const asked = [];
    for (const name of names.filter((n) => n !== 'help')) {
      asked.push({ name, byFlag: await cli([...name.split(' '), '--help']), byWord: await cli(['help', ...name.split(' ')]) });
    }
    for (const { name, byFlag, byWord } of asked) {
      expect(byFlag.code, name).toBe(0);
      expect(byFlag.stdout, name).toMatch(new RegExp(`^Usage: statusbot ${name} `));
      expect(byFlag.stdout).not.toContain('incident and status service');
      expect(byWord.stdout).toBe(byFlag.stdout);
    }
    const serve = asked.find((a) => a.name === 'serve')!.byFlag;
    expect(serve.stdout).toContain('--host ADDRESS   HOST');
    expect(serve.stdout).toContain('--port N         PORT');
  });

  it('a group lists its commands; an unknown one exits 2', async () => {
    const key = await cli(['key', '--help']);
    expect(key.code).toBe(0);
    for (const verb of ['create', 'list', 'revoke']) expect(key.stdout).toContain(`statusbot key ${verb} `);
    const bare = await cli(['key']);
    expect(bare.code).toBe(2);
    expect(bare.stderr.split('\n')[0]).toBe('statusbot: key needs one of: create, list, revoke');
    const unknown = await cli(['help', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('statusbot: unknown command "frobnicate"');
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('progress', () => {
  it('is not shown in a pipe: apply prints its result only', async () => {
    const config = join(dir, 'statusbot.yml');
    writeFileSync(config, README_EXAMPLE_CONFIG);
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    const res = await cli(['apply', '--config', config, '--db', dbPath]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
  });
});
