import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { migrations } from '../migrations/index.js';
import { TEST_ENGINE } from './helpers/test-database.js';
import { README_EXAMPLE_CONFIG, startTestServer } from './helpers/test-server.js';
import { waitUntil } from './helpers/wait-until.js';
import { ROOT, runCli, spawnCli, startCli } from './cli/run-cli.js';
import { fixture, movedTo, startFakeStatusPages } from './fakes/fake-status-pages.js';
import type { Run, Running } from './cli/run-cli.js';

const CONFIG = README_EXAMPLE_CONFIG;

// The command line on SQLite files, whichever engine the run is for: once is enough.
const describeOnce = describe.skipIf(TEST_ENGINE !== 'sqlite');

const cli = (args: string[]): Promise<Run> => runCli(args, { cwd: dir });

/** `statusbot serve ARGS` in a process of its own, on a port of the system's choosing. */
async function serve(args: string[]): Promise<Running & { port: number }> {
  const s = startCli(['serve', '--port', '0', ...args], { cwd: dir });
  served.push(s);
  return Object.assign(s, { port: (await s.listening()).port });
}

const startedOut = (s: Running, what: string, text: string) =>
  waitUntil(() => s.out.stdout.includes(text), { what: `${what} in the output of statusbot serve` });

/** Rows of the tables a config declares. */
async function counts(dbPath: string): Promise<Record<string, number>> {
  const db = openDatabase({ path: dbPath });
  try {
    const out: Record<string, number> = {};
    for (const table of ['companies', 'api_keys', 'services', 'company_monitored_services', 'custom_monitors', 'boards', 'board_services'] as const) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      out[table] = Number(row.n);
    }
    return out;
  } finally {
    await db.destroy();
  }
}

let dir: string;
let dbPath: string;
let configPath: string;
const served: Running[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-cli-'));
  dbPath = join(dir, 'data', 'statusbot.db');
  configPath = join(dir, 'statusbot.yml');
  writeFileSync(configPath, CONFIG);
});
afterEach(async () => {
  for (const s of served.splice(0)) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

describeOnce('statusbot migrate', () => {
  it('prints what it applied, then that the database is up to date', async () => {
    const first = await cli(['migrate', '--db', dbPath]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`created a new database at ${dbPath}\napplied ${Object.keys(migrations).join(', ')}\n`);
    expect(existsSync(dbPath)).toBe(true);
    const second = await cli(['migrate', '--db', dbPath]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('up to date');
    expect(second.stdout).not.toContain('0001_init');
  });
});

describeOnce('statusbot apply', () => {
  it('applies a config file, twice with the same result', async () => {
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    const first = await cli(['apply', '--config', configPath, '--db', dbPath]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`applied ${configPath}`);
    expect(first.stdout).toMatch(/1 compan/);
    const once = await counts(dbPath);
    expect(once).toMatchObject({ companies: 1, api_keys: 1, custom_monitors: 2, boards: 1, board_services: 1, company_monitored_services: 1 });

    const second = await cli(['apply', '--config', configPath, '--db', dbPath]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(`applied ${configPath}: no changes\n`);
    expect(await counts(dbPath)).toEqual(once);
  });

  it('without --config exits 2 with usage', async () => {
    const res = await cli(['apply', '--db', dbPath]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('apply needs --config FILE');
    expect(res.stderr).toContain('Usage:');
  });

  it('an invalid config exits 1 naming the file, line and key, and writes nothing', async () => {
    writeFileSync(configPath, CONFIG.replace('plan: business', 'plan: gold'));
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    const res = await cli(['apply', '--config', configPath, '--db', dbPath]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${configPath}:8:`);
    expect(res.stderr).toContain('companies[0].plan');
    expect(res.stdout).toBe('');
  });

  it('a config that clashes with the database exits 1 with the line of the entry', async () => {
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    expect((await cli(['apply', '--config', configPath, '--db', dbPath])).code).toBe(0);
    // Another file, applied to the same database, gives Acme's service id to Globex.
    const clash = `companies:\n  - name: Globex\n    custom_services:\n      - { id: 1001, name: Globex API, urlname: globex-api }\n`;
    writeFileSync(configPath, clash);
    const res = await cli(['apply', '--config', configPath, '--db', dbPath]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${configPath}:${clash.split('\n').length - 1}:`);
    expect(res.stderr).toContain('service id 1001 is already taken');
    expect((await counts(dbPath)).companies).toBe(1);
  });
});

describeOnce('statusbot key create', () => {
  it('prints a new key on stdout that authenticates against a server on that database', async () => {
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    expect((await cli(['apply', '--config', configPath, '--db', dbPath])).code).toBe(0);
    const res = await cli(['key', 'create', '--company', 'Acme', '--db', dbPath]);
    expect(res.code, res.stderr).toBe(0);
    const key = res.stdout.trim();
    expect(res.stdout).toBe(`${key}\n`);
    expect(key).toMatch(/^\S{20,}$/);
    expect(key).not.toBe('acme-key-1');
    expect(res.stderr).toContain('Acme');

    const server = await startTestServer({ dbPath, config: '' });
    try {
      const db = server.ctx.db;
      const hashes = (await db.selectFrom('api_keys').select('key_hash').execute()).map((r) => r.key_hash);
      expect(hashes).toContain(createHash('sha256').update(key).digest('hex'));
      expect(hashes).not.toContain(key);

      const monitors = await server.api('GET', '/api/v2/custom_monitors', { key });
      expect(monitors.status, monitors.text).toBe(200);
      expect(monitors.body.data.map((m: { id: string }) => m.id)).toEqual(['501', '502']);
      // The key from the config still works, and a second key is a different one.
      expect((await server.api('GET', '/api/v2/custom_monitors', { key: 'acme-key-1' })).status).toBe(200);
    } finally {
      await server.stop();
    }
    const again = await cli(['key', 'create', '--company', 'Acme', '--db', dbPath]);
    expect(again.stdout.trim()).not.toBe(key);
  });

  it('for an unknown company exits non-zero with a clear message and prints no key', async () => {
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    expect((await cli(['apply', '--config', configPath, '--db', dbPath])).code).toBe(0);
    const res = await cli(['key', 'create', '--company', 'Nope', '--db', dbPath]);
    expect(res.code).not.toBe(0);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('Nope');
    expect(res.stderr).toMatch(/no company/i);
    expect((await counts(dbPath)).api_keys).toBe(1);
  });

  it('without --company, or with a wrong subcommand, exits 2 with usage', async () => {
    const noCompany = await cli(['key', 'create', '--db', dbPath]);
    expect(noCompany.code).toBe(2);
    expect(noCompany.stderr).toContain('--company');
    const wrong = await cli(['key', 'delete', '--company', 'Acme', '--db', dbPath]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('Usage:');
  });
});

describeOnce('statusbot outbox', () => {
  it('lists dead notifications and puts them back in line', async () => {
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    expect((await cli(['apply', '--config', configPath, '--db', dbPath])).code).toBe(0);
    const db = openDatabase({ path: dbPath });
    try {
      const company = await db.selectFrom('companies').select('id').executeTakeFirstOrThrow();
      await db
        .insertInto('outbox')
        .values([
          {
            company_id: company.id,
            subscriber_id: null,
            stream: 'slack:T1:C1',
            event: 'incident.created',
            payload: '{}',
            state: 'dead',
            attempts: 10,
            next_attempt_at: 0,
            last_error: 'HTTP 500',
            created_at: 0,
          },
          {
            company_id: company.id,
            subscriber_id: null,
            stream: 'slack:T1:C1',
            event: 'incident.updated',
            payload: '{}',
            state: 'sent',
            attempts: 1,
            next_attempt_at: 0,
            created_at: 0,
            sent_at: 1,
          },
        ])
        .execute();
    } finally {
      await db.destroy();
    }
    const dead = await cli(['outbox', 'list', '--dead', '--db', dbPath]);
    expect(dead.code, dead.stderr).toBe(0);
    expect(dead.stdout).toMatch(/^1\tdead\tincident\.created\tslack:T1:C1\tattempts 10\t.*HTTP 500\n$/);
    const all = await cli(['outbox', 'list', '--db', dbPath]);
    expect(all.stdout.trim().split('\n')).toHaveLength(2);
    const retry = await cli(['outbox', 'retry', '--db', dbPath]);
    expect(retry.stdout).toContain('1 dead notification back in line');
    expect((await cli(['outbox', 'list', '--dead', '--db', dbPath])).stdout).toContain('no dead notifications');
    const pending = await cli(['outbox', 'list', '--db', dbPath]);
    expect(pending.stdout).toMatch(/^1\tpending\t.*attempts 0/m);
    const bad = await cli(['outbox', 'retry', 'x1', '--db', dbPath]);
    expect(bad.code).toBe(2);
  });
});

describeOnce('statusbot jobs run', () => {
  it('runs one job once and says what it did; an unknown job exits 2', async () => {
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    const demo = await cli(['jobs', 'run', 'demo-cycle', '--config', configPath, '--db', dbPath]);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/^job demo-cycle: \d+ demo incidents? opened or resolved/m);
    const retention = await cli(['jobs', 'run', 'retention', '--config', configPath, '--db', dbPath]);
    expect(retention.stdout).toContain('job retention: removed 0 incidents, 0 monitor incidents');
    // The config's monitors point at a closed port: one probe each, recorded as a first failure.
    const monitors = await cli(['jobs', 'run', 'monitors', '--config', configPath, '--db', dbPath]);
    expect(monitors.stdout).toContain('job monitors: probed 2 monitors');
    const db = openDatabase({ path: dbPath });
    try {
      const rows = await db.selectFrom('custom_monitors').select(['id', 'consecutive_failures']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 501, consecutive_failures: 1 },
        { id: 502, consecutive_failures: 1 },
      ]);
    } finally {
      await db.destroy();
    }
    const unknown = await cli(['jobs', 'run', 'coffee', '--db', dbPath]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown job "coffee"');
  });
});

describeOnce('statusbot feeds', () => {
  it('lists the watched feeds with their state, and every feed with --all', async () => {
    const withFeeds = join(dir, 'feeds.yml');
    writeFileSync(withFeeds, `${CONFIG}    monitored_services: [github]\n`.replace('    monitored_services: [demo-service-minor]\n', ''));
    expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
    const applied = await cli(['apply', '--config', withFeeds, '--db', dbPath]);
    expect(applied.code, applied.stderr).toBe(0);
    const watched = await cli(['feeds', '--db', dbPath]);
    expect(watched.code, watched.stderr).toBe(0);
    // Never read yet: no data, no success, due at once.
    expect(watched.stdout).toMatch(
      /^github\tstatuspage\thttps:\/\/www\.githubstatus\.com\tno data \(the vendor's status feed has not been read yet\)\tlast ok -\tnext 1970-01-01T00:00:00\.000Z\n$/,
    );
    const all = await cli(['feeds', '--all', '--db', dbPath]);
    expect(all.stdout.trim().split('\n').length).toBeGreaterThan(150);
    expect(all.stdout).toMatch(
      /^aws\trss\thttps:\/\/status\.aws\.amazon\.com\/rss\/all\.rss\tno data \(the vendor's status feed has not been read yet\)\tlast ok -\tnot watched$/m,
    );
  });

  it('feeds check reads the named feeds once and says ok or why not, recording nothing; 1 when one failed', async () => {
    const pages = await startFakeStatusPages();
    try {
      const now = new Date();
      pages.set('/up/api/v2/summary.json', { body: movedTo(fixture('statuspage-github-summary.json'), now) });
      pages.set('/up/api/v2/incidents.json', { body: movedTo(fixture('statuspage-github-incidents.json'), now) });
      pages.set('/down/api/v2/summary.json', { status: 503, body: 'maintenance' });
      pages.set('/down/api/v2/incidents.json', { status: 503, body: 'maintenance' });
      const file = join(dir, 'check.yml');
      writeFileSync(
        file,
        [
          'services:',
          `  - { urlname: up-vendor, name: Up Vendor, feed: { kind: statuspage, url: "${pages.url}/up" } }`,
          `  - { urlname: down-vendor, name: Down Vendor, feed: { kind: statuspage, url: "${pages.url}/down" } }`,
          'companies:',
          '  - { name: Acme, monitored_services: [up-vendor, down-vendor] }',
          '',
        ].join('\n'),
      );
      // A check reads what the database holds: the config is applied by apply (or serve), not by the check.
      const before = await cli(['feeds', 'check', '--config', file, '--db', dbPath]);
      expect(before.code).toBe(1);
      expect(before.stderr).toBe(
        `statusbot: there is no database at ${dbPath}; pass the one the server uses with --db (or STATUSBOT_DB), or make a new one with statusbot migrate --db ${dbPath}\n`,
      );
      expect((await cli(['migrate', '--db', dbPath])).code).toBe(0);
      const applied = await cli(['apply', '--config', file, '--db', dbPath]);
      expect(applied.code, applied.stderr).toBe(0);
      const both = await cli(['feeds', 'check', '--config', file, '--db', dbPath]);
      expect(both.code, both.stderr).toBe(1);
      const lines = both.stdout.trim().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(
          /^down-vendor\tstatuspage\thttp:\/\/127\.0\.0\.1:\d+\/down\tfailed: http:\/\/127\.0\.0\.1:\d+\/down\/api\/v2\/summary\.json: HTTP 503$/,
        ),
        expect.stringMatching(/^up-vendor\tstatuspage\thttp:\/\/127\.0\.0\.1:\d+\/up\tok: status ok, 0 open of 5 incidents, \d+ components, 0 maintenances$/),
      ]);
      const one = await cli(['feeds', 'check', 'up-vendor', '--config', file, '--db', dbPath]);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout).toMatch(/^up-vendor\t.*\tok: /);
      // A check records nothing: the feeds are still unread.
      const listed = await cli(['feeds', '--db', dbPath]);
      expect(listed.stdout).toContain("no data (the vendor's status feed has not been read yet)");
      const unknown = await cli(['feeds', 'check', 'nope', '--db', dbPath]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toBe('statusbot: no service with a feed is named nope; statusbot feeds --all lists them\n');
    } finally {
      await pages.close();
    }
  });
});

describeOnce('help, version, and read-only commands on a missing database', () => {
  it('prints the usage for help, the version for --version', async () => {
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^statusbot — incident and status service\n\nUsage:/);
    const version = await cli(['--version']);
    expect(version.code).toBe(0);
    // The version of package.json and the commit the program was built from, in full.
    const head = execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(version.stdout).toMatch(
      new RegExp(
        `^statusbot ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version.replaceAll('.', '\\.')} \\(commit ${head}(, with changes not committed)?\\)\n$`,
      ),
    );
  });

  it('the built program, run as a shell runs it, says the same and exits with the same codes', async () => {
    const version = await spawnCli(['--version'], { cwd: dir });
    expect(version).toEqual({ code: 0, signal: null, stdout: (await cli(['--version'])).stdout, stderr: '' });
    const migrated = await spawnCli(['migrate', '--db', dbPath], { cwd: dir });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toBe(`created a new database at ${dbPath}\napplied ${Object.keys(migrations).join(', ')}\n`);
    const unknown = await spawnCli(['frobnicate'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe((await cli(['frobnicate'])).stderr);
  });

  it('outbox list and feeds refuse a database file that is not there, in one line, and create nothing', async () => {
    const missing = join(dir, 'typo', 'statusbot.db');
    for (const args of [['outbox', 'list'], ['feeds']]) {
      const res = await cli([...args, '--db', missing]);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toBe(
        `statusbot: there is no database at ${missing}; pass the one the server uses with --db (or STATUSBOT_DB), or make a new one with statusbot migrate --db ${missing}\n`,
      );
    }
    expect(existsSync(missing)).toBe(false);
  });
});

describeOnce('a PostgreSQL database that cannot be used', () => {
  it('stops serve and migrate with one line naming the host and the cause, never a stack or a password', async () => {
    // Nothing listens on the discard port: the connection is refused.
    const refused = 'postgres://statusbot:hunter2-secret@127.0.0.1:9/statusbot';
    for (const args of [
      ['migrate', '--db', refused],
      ['serve', '--port', '0', '--db', refused],
    ]) {
      const res = await cli(args);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^statusbot: cannot use the PostgreSQL database at 127\.0\.0\.1:\d+\/statusbot: connection refused/),
      ]);
      expect(res.stderr).not.toContain('hunter2');
    }
    const badUser = await cli(['migrate', '--db', 'postgres://no_such_role_here@127.0.0.1:5432/test']);
    if (badUser.stderr.includes('connection refused')) return; // No PostgreSQL server on this machine.
    expect(badUser.stderr.trim()).toMatch(
      /^statusbot: cannot use the PostgreSQL database at 127\.0\.0\.1:5432\/test: authentication failed: role "no_such_role_here" does not exist$/,
    );
  });
});

describeOnce('usage errors', () => {
  it('an unknown command exits 2 with the usage', async () => {
    const res = await cli(['frobnicate', '--db', dbPath]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown command "frobnicate"');
    expect(res.stderr).toContain('Usage:');
    expect(res.stderr).toContain('statusbot key create --company NAME');
    expect(existsSync(dbPath)).toBe(false);
  });

  it('an unknown option and a bad port exit 2', async () => {
    const option = await cli(['migrate', '--frobnicate', '--db', dbPath]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('Usage:');
    const port = await cli(['serve', '--port', 'eighty', '--db', dbPath]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('eighty');
  });

  it('--help prints the usage and exits 0', async () => {
    const res = await cli(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage:');
  });
});

describeOnce('statusbot serve', () => {
  it('with an invalid config file exits 1 with the line number on stderr', async () => {
    const bad = CONFIG.replace(', keyword: "Sign in"', '');
    writeFileSync(configPath, bad);
    const res = await cli(['serve', '--port', '0', '--db', dbPath, '--config', configPath]);
    expect(res.code).toBe(1);
    const line = bad.split('\n').findIndex((l) => l.includes('name: Login')) + 1;
    expect(res.stderr).toContain(`${configPath}:${line}:`);
    expect(res.stderr).toContain('companies[0].custom_monitors[1].keyword');
  });

  it('with a config file that is not there exits 1 naming it', async () => {
    const res = await cli(['serve', '--port', '0', '--db', dbPath, '--config', join(dir, 'missing.yml')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('missing.yml');
  });

  it('without config on a fresh database prints the demo key and a curl line, answers, and exits 0 on SIGTERM', async () => {
    const s = await serve(['--db', dbPath]);
    // In a pipe, the demo key's line is JSON like the log's.
    const line = await waitUntil(() => s.out.stdout.split('\n').find((l) => l.includes('"demo_api_key"')), { what: 'the demo key line' });
    const demo = JSON.parse(line) as { msg: string; demo_api_key: string; try: string };
    const key = demo.demo_api_key;
    const curl = /^curl -s -H "Authorization: Bearer (\S+)" (\S+)$/.exec(demo.try)!;
    expect(curl[1]).toBe(key);
    const url = new URL(curl[2]!);
    expect(demo.msg).toMatch(/shown this once/);
    expect(s.out.stdout).toContain(`statusbot listening on http://0.0.0.0:${s.port} (every IPv4 address of this machine; database ${dbPath})`);
    expect(url.port).toBe(String(s.port));
    expect(url.pathname).toMatch(/^\/api\/v2\/boards\/[0-9a-f-]{36}$/);

    const base = `http://127.0.0.1:${s.port}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    // The curl line works as printed (against 127.0.0.1, as curl would fall back to).
    const board = await fetch(`${base}${url.pathname}`, { headers: { authorization: `Bearer ${key}` } });
    expect(board.status).toBe(200);
    const body = (await board.json()) as { data: { type: string; attributes: { services: unknown[] } } };
    expect(body.data.type).toBe('board');
    expect(body.data.attributes.services.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/api/v2/services`)).status).toBe(401);

    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(s.out.stdout).toContain('SIGTERM');
    expect(s.out.stderr).toBe('');
  });

  it('a second start on the same database does not create another demo company or print a key', async () => {
    const first = await serve(['--db', dbPath]);
    await startedOut(first, 'the curl line', 'curl');
    expect((await first.stop()).code).toBe(0);

    const second = await serve(['--db', dbPath]);
    // It says how to get a key instead.
    await startedOut(second, 'the key hint', 'key create');
    // In a pipe, the hint is a JSON line whose command field is the line to run.
    expect(second.out.stdout).toContain(`"command":"statusbot key create --company Demo --db ${dbPath}"}\n`);
    expect((await counts(dbPath)).companies).toBe(1);
    expect((await second.stop()).code).toBe(0);
    expect(second.out.stdout).not.toContain('curl');
  });

  it('with a config serves its companies and no demo company', async () => {
    const s = await serve(['--db', dbPath, '--config', configPath]);
    const res = await fetch(`http://127.0.0.1:${s.port}/api/v2/custom_monitors`, { headers: { authorization: 'Bearer acme-key-1' } });
    expect(res.status).toBe(200);
    expect((await s.stop()).code).toBe(0);
    expect(s.out.stdout).not.toContain('curl');
  });

  it('survives a request whose target is not a valid URL', async () => {
    const s = await serve(['--db', dbPath, '--config', configPath]);
    const reply = await new Promise<string>((resolveReply) => {
      const socket = connect(s.port, '127.0.0.1');
      let data = '';
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        resolveReply(data);
      };
      const timer = setTimeout(done, 2000);
      socket.on('data', (b) => (data += b.toString('utf8')));
      socket.on('end', done);
      socket.on('error', done);
      socket.write('GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    expect(reply).toMatch(/^HTTP\/1\.1 4\d\d /);
    // It answers the next request: it did not die of the last one.
    const health = await fetch(`http://127.0.0.1:${s.port}/healthz`);
    expect(health.status).toBe(200);
    expect(s.child.exitCode, `the server died:\n${s.out.stderr}`).toBeNull();
    expect((await s.stop()).code).toBe(0);
  });
});
