import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_ENGINE, createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { GLOBEX_KEY, README_EXAMPLE_CONFIG, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { runCli } from './run-cli.js';

let dir: string;
let database: TestDatabase;
let server: TestServer | undefined;

const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

async function open(body: Record<string, unknown>, key?: string): Promise<string> {
  const res = await server!.api('POST', '/api/v2/incidents', { body, key });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-incidents-'));
  database = await createTestDatabase();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('statusbot incidents list', () => {
  it("prints the company's incidents newest first, one line each, --open only the unresolved ones", async () => {
    // Acme (custom services acme-api and acme-web), Globex and Initech.
    server = await startTestServer({ dbPath: database.path });
    const a = await open({ service_id: 1001, title: 'Logins fail', status: 'major' });
    server.clock.set(at(1));
    const b = await open({ service_id: 1002, title: 'Web\tslow\non mobile', resolution_stage: 'resolved', description: 'Fixed.' });
    server.clock.set(at(2));
    const c = await open({ service_id: 1002, title: 'Images missing' });
    await open({ service_id: 2001, title: 'Globex down' }, GLOBEX_KEY);

    const all = await cli('incidents', 'list', '--company', 'Acme');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toBe('');
    expect(all.stdout).toBe(
      [
        `${c}\tacme-web\tminor\topen\t${at(2)}\tImages missing`,
        `${b}\tacme-web\tminor\tresolved\t${at(1)}\tWeb slow on mobile`,
        `${a}\tacme-api\tmajor\topen\t${T0}\tLogins fail`,
        '',
      ].join('\n'),
    );
    // The same list as the API's, in the same order.
    const api = await server.api('GET', '/api/v2/incidents');
    expect(
      all.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(api.body.data.map((i: any) => i.id));

    const unresolved = await cli('incidents', 'list', '--open', '--company', 'Acme');
    expect(unresolved.code, unresolved.stderr).toBe(0);
    expect(
      unresolved.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual([c, a]);
    expect((await cli('incidents', 'list', '--company', 'Globex')).stdout).toMatch(/^\d+\tglobex-api\tminor\topen\t\S+Z\tGlobex down\n$/);
  });

  it('says so in one line when there are none, or none open', async () => {
    server = await startTestServer({ dbPath: database.path });
    await open({ service_id: 2001, title: 'Over', resolution_stage: 'resolved', description: 'Done.' }, GLOBEX_KEY);
    const none = await cli('incidents', 'list', '--company', 'Initech');
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('Initech has no incidents\n');
    const noneOpen = await cli('incidents', 'list', '--open', '--company', 'Globex');
    expect(noneOpen.code).toBe(0);
    expect(noneOpen.stdout).toBe('Globex has no open incidents\n');
  });

  it('prints every incident, past a page of the API', async () => {
    server = await startTestServer({ dbPath: database.path });
    for (let n = 1; n <= 205; n++) await open({ service_id: 1001, title: `#${n}` });
    const res = await cli('incidents', 'list', '--company', 'Acme');
    expect(res.code, res.stderr).toBe(0);
    const titles = res.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[5]);
    expect(titles).toEqual(Array.from({ length: 205 }, (_, i) => `#${205 - i}`));
  });

  it('without --company lists the only company there is, and among several exits 2 naming them', async () => {
    server = await startTestServer({ dbPath: database.path });
    const several = await cli('incidents', 'list');
    expect(several.code).toBe(2);
    expect(several.stdout).toBe('');
    expect(several.stderr.split('\n')[0]).toBe('statusbot: incidents list needs --company NAME; the companies are Acme, Globex, Initech');
    const unknown = await cli('incidents', 'list', '--company', 'Nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('statusbot: no company is named "Nope"; the companies are Acme, Globex, Initech\n');
  });

  it('of a database with one company, needs no --company', async () => {
    // Acme alone, with its custom service acme-api.
    server = await startTestServer({ dbPath: database.path, config: README_EXAMPLE_CONFIG });
    const id = await open({ service_id: 1001, title: 'Logins fail' });
    const res = await cli('incidents', 'list', '--open');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`${id}\tacme-api\tminor\topen\t${T0}\tLogins fail\n`);
  });

  it.skipIf(TEST_ENGINE !== 'sqlite')('refuses a database file that is not there in one line, and creates none', async () => {
    const missing = join(dir, 'typo.db');
    const res = await runCli(['incidents', 'list', '--db', missing], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `statusbot: there is no database at ${missing}; pass the one the server uses with --db (or STATUSBOT_DB), or make a new one with statusbot migrate --db ${missing}\n`,
    );
    expect(existsSync(missing)).toBe(false);
  });

  it('has its own help', async () => {
    const help = await cli('incidents', 'list', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: statusbot incidents list \[--open\] \[--company NAME\] \[--db FILE\|URL\]\n/);
    expect(help.stdout).toContain('--open');
  });
});
