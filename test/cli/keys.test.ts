import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeKeyUses } from '../../src/domain/companies/api-keys.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { runCli, startCli } from './run-cli.js';
import type { Running } from './run-cli.js';

let dir: string;
let database: TestDatabase;
let server: TestServer;
const running: Running[] = [];

const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
const statusWith = async (base: string, key: string) => (await fetch(`${base}/api/v2/custom_monitors`, { headers: { authorization: `Bearer ${key}` } })).status;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-keys-'));
  database = await createTestDatabase();
  // Acme (its key from the config), Globex and Initech.
  server = await startTestServer({ dbPath: database.path });
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  await server.stop();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('statusbot key create', () => {
  it('takes a label, prints the key alone on stdout and one line about it on stderr', async () => {
    const res = await cli('key', 'create', '--company', 'Acme', '--label', 'deploy bot');
    expect(res.code, res.stderr).toBe(0);
    const key = res.stdout.trim();
    expect(res.stdout).toBe(`${key}\n`);
    expect(res.stderr).toMatch(/^New API key \d+ for Acme \(deploy bot\), shown this once; statusbot keeps only its hash:\n$/);
    expect(await statusWith(server.url, key)).toBe(200);
  });

  it('refuses a blank label with one line, and issues nothing', async () => {
    const res = await cli('key', 'create', '--company', 'Acme', '--label', ' ');
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^statusbot: .*label/)]);
  });
});

describe('statusbot key list', () => {
  it('shows each key: id, label, prefix, created, last used, revoked', async () => {
    const created = await cli('key', 'create', '--company', 'Acme', '--label', 'deploy');
    const key = created.stdout.trim();
    const id = /New API key (\d+)/.exec(created.stderr)![1]!;
    // A server writes the uses of keys a minute after them (or as it closes).
    expect(await statusWith(server.url, ACME_KEY)).toBe(200);
    await writeKeyUses(server.ctx);

    const res = await cli('key', 'list', '--company', 'Acme');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^\\d+\\tconfig\\t-\\tcreated ${T0.replace(/\./g, '\\.')}\\tlast used ${T0.replace(/\./g, '\\.')}$`));
    expect(lines[1]).toMatch(new RegExp(`^${id}\\tdeploy\\t${key.slice(0, 8)}…\\tcreated \\S+Z\\tlast used never$`));
    expect(res.stdout).not.toContain(key);
  });

  it('for an unknown company exits 1 with one line naming the companies there are', async () => {
    const res = await cli('key', 'list', '--company', 'Nope');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('statusbot: no company is named "Nope"; the companies are Acme, Globex, Initech\n');
  });

  it('without --company exits 2 naming it', async () => {
    const res = await cli('key', 'list');
    expect(res.code).toBe(2);
    expect(res.stderr.split('\n')[0]).toBe('statusbot: key list needs --company NAME');
    expect(res.stderr).toContain('statusbot key list --company NAME');
  });
});

describe('statusbot key revoke', () => {
  it('a revoked key is refused on the next request by every server on the database, each in its own process', async () => {
    // A second server: `statusbot serve` in a process of its own, on the same database.
    const other = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', database.path], { cwd: dir });
    running.push(other);
    const otherUrl = (await other.listening()).url;

    const created = await cli('key', 'create', '--company', 'Acme', '--label', 'ci');
    const key = created.stdout.trim();
    const id = /New API key (\d+)/.exec(created.stderr)![1]!;
    for (const base of [server.url, otherUrl, server.url, otherUrl]) expect(await statusWith(base, key)).toBe(200);

    const res = await cli('key', 'revoke', id);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`revoked key ${id} of Acme (ci): requests with it are refused from now on\n`);
    expect(await statusWith(server.url, key)).toBe(401);
    expect(await statusWith(otherUrl, key)).toBe(401);
    expect(await statusWith(otherUrl, ACME_KEY)).toBe(200);

    const list = await cli('key', 'list', '--company', 'Acme');
    expect(list.stdout).toMatch(new RegExp(`^${id}\\tci\\t.*\\trevoked \\S+Z$`, 'm'));
    const again = await cli('key', 'revoke', id);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^key ${id} of Acme \\(ci\\) was already revoked on \\S+Z\\n$`));
    expect((await other.stop()).code).toBe(0);
  });

  it('an unknown id exits 1 with one line saying where ids are shown; a malformed one exits 2', async () => {
    const unknown = await cli('key', 'revoke', '999999');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('statusbot: there is no API key 999999; statusbot key list --company NAME shows the ids\n');
    const malformed = await cli('key', 'revoke', 'sb_abc');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr.split('\n')[0]).toBe('statusbot: "sb_abc" is not a key id; statusbot key list --company NAME shows the ids');
    const none = await cli('key', 'revoke');
    expect(none.code).toBe(2);
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('key commands on a database file that is not there', () => {
  it('refuse it in one line and create nothing', async () => {
    const missing = join(dir, 'typo.db');
    for (const args of [
      ['key', 'list', '--company', 'Acme'],
      ['key', 'create', '--company', 'Acme'],
      ['key', 'revoke', '1'],
    ]) {
      const res = await runCli([...args, '--db', missing], { cwd: dir });
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toBe(
        `statusbot: there is no database at ${missing}; pass the one the server uses with --db (or STATUSBOT_DB), or make a new one with statusbot migrate --db ${missing}\n`,
      );
    }
  });
});

describe('statusbot audit list', () => {
  it('shows the key made and revoked at the command line, by cli, and the API change by its key, newest first', async () => {
    const created = await cli('key', 'create', '--company', 'Acme', '--label', 'deploy');
    const id = /New API key (\d+)/.exec(created.stderr)![1]!;
    const key = created.stdout.trim();
    const incident = await fetch(`${server.url}/api/v2/incidents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'deploy-42' },
      body: JSON.stringify({ service_id: 1001, title: 'Deploy went wrong' }),
    });
    expect(incident.status).toBe(201);
    expect((await cli('key', 'revoke', id)).code).toBe(0);
    expect(await statusWith(server.url, key)).toBe(401);

    const res = await cli('audit', 'list', '--company', 'Acme', '--limit', '3');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines.map(([, , company, actor, action, target, request]) => [company, actor, action, target, request])).toEqual([
      ['Acme', 'cli', 'api_key.revoke', `api_key:${id}`, '-'],
      ['Acme', `api_key:${id}`, 'incident.create', expect.stringMatching(/^incident:\d+$/), 'deploy-42'],
      ['Acme', 'cli', 'api_key.create', `api_key:${id}`, '-'],
    ]);
    expect(JSON.parse(lines[2]![7]!)).toEqual({ label: { to: 'deploy' }, prefix: { to: key.slice(0, 8) } });
    expect(res.stdout).not.toContain(key);
    // More than three events: the way to the older ones.
    expect(res.stderr).toBe(`older events: statusbot audit list --company Acme --before ${lines[2]![0]}\n`);

    const wrong = await cli('audit', 'list', '--before', 'yesterday');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toEqual(['statusbot: before must be the id of an audit event, such as 1234']);
  });
});
