import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import { visibleText } from '../helpers/pages.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { runCli, startCli } from './run-cli.js';
import type { Running } from './run-cli.js';

const ACME = `public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["acme-own-key"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping }
    boards:
      - { id: 5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01, name: Vendors, urlname: vendors, services: [{ urlname: github }] }
    status_pages:
      - { name: Acme status, slug: acme, services: [acme-api], third_party: [github], monitors: [501] }
`;

let dir: string;
let database: TestDatabase;
const running: { stop(): Promise<unknown> }[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-demo-off-'));
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(config: string): Promise<TestServer> {
  const s = await startTestServer({ config, dbPath: database.path });
  running.push(s);
  return s;
}
async function stop(s: TestServer): Promise<void> {
  running.splice(running.indexOf(s), 1);
  await s.stop();
}

const status = async (s: TestServer, path: string, key?: string) =>
  (await fetch(`${s.url}${path}`, key ? { headers: { authorization: `Bearer ${key}` } } : {})).status;

/** What a user sees of the demo and of Acme in the database. */
async function holdings() {
  const db = openDatabase({ path: database.path });
  try {
    const names = async (table: 'companies' | 'status_pages') => (await db.selectFrom(table).select('name').orderBy('name').execute()).map((r) => r.name);
    const demoServices = await db.selectFrom('services').select('urlname').where('demo', 'is not', null).execute();
    const incidents = await db
      .selectFrom('incidents')
      .innerJoin('services', 'services.id', 'incidents.service_id')
      .select(['services.urlname', 'incidents.title'])
      .orderBy('incidents.id')
      .execute();
    const monitors = (await db.selectFrom('custom_monitors').select('id').orderBy('id').execute()).map((r) => Number(r.id));
    const boards = await db.selectFrom('board_services').innerJoin('boards', 'boards.id', 'board_services.board_id').select('boards.urlname').execute();
    const meta = await db.selectFrom('meta').select('key').where('key', 'like', 'demo:%').execute();
    return {
      companies: await names('companies'),
      pages: await names('status_pages'),
      demoServices: demoServices.length,
      demoIncidents: incidents.filter((i) => i.urlname.startsWith('demo-')).length,
      acmeIncidents: incidents.filter((i) => i.urlname === 'acme-api').map((i) => i.title),
      monitors,
      boards: boards.map((b) => b.urlname).sort(),
      demoMeta: meta.length,
    };
  } finally {
    await db.destroy();
  }
}

describe('demo: false', () => {
  it('on a fresh database: no demo company, services, page or job', async () => {
    const config = 'public_url: http://status.test\ndemo: false\n';
    expect(parseConfig('statusbot.yml', config).config.disabledJobs.has('demo-cycle')).toBe(true);
    expect(parseConfig('statusbot.yml', '').config.disabledJobs.has('demo-cycle')).toBe(false);
    const s = await start(config);
    expect(s.demoKey).toBeNull();
    expect(await status(s, '/status/demo')).toBe(404);
    expect(await status(s, '/services/demo-service')).toBe(404);
    expect(await holdings()).toMatchObject({ companies: [], pages: [], demoServices: 0, monitors: [] });
  });

  it('on a database that had the demo: the demo company, its key, services, page and incidents are gone; the operator’s own stay', async () => {
    // A first start makes the demo; the demo key makes an incident; then the operator's config comes beside it.
    const first = await start('public_url: http://status.test\n');
    const demoKey = first.demoKey!;
    expect(
      (
        await first.api('POST', '/api/v2/incidents', {
          key: demoKey,
          body: { service_id: 9001, title: 'Tried', status: 'minor', description: 'Trying the demo.' },
        })
      ).status,
    ).toBe(201);
    await stop(first);
    const second = await start(ACME);
    const own = await second.api('POST', '/api/v2/incidents', {
      key: 'acme-own-key',
      body: { service_id: 1001, title: 'Our own', status: 'major', description: 'Ours.' },
    });
    expect(own.status).toBe(201);
    expect(await status(second, '/api/v2/custom_monitors', demoKey)).toBe(200);
    await stop(second);
    const before = await holdings();
    expect(before.companies).toEqual(['Acme', 'Demo']);
    expect(before.pages).toEqual(['Acme status', 'Demo status']);
    expect(before.demoIncidents).toBeGreaterThan(0);

    // A demo: false config that still names a demo service is refused at its line, and changes nothing.
    const refused = join(dir, 'refused.yml');
    writeFileSync(refused, `demo: false\n${ACME.replace('services: [{ urlname: github }]', 'services: [{ urlname: github }, { urlname: demo-service }]')}`);
    const res = await runCli(['apply', '--config', refused, '--db', database.path], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/refused\.yml:\d+:\d+: .*demo-service/);
    expect(await holdings()).toEqual(before);

    const third = await start(`demo: false\n${ACME}`);
    expect(await status(third, '/api/v2/custom_monitors', demoKey)).toBe(401);
    expect(await status(third, '/status/demo')).toBe(404);
    expect(await status(third, '/services/demo-service')).toBe(404);
    const home = visibleText(await (await fetch(`${third.url}/`)).text());
    expect(home).not.toContain('What to try');
    expect(home).toContain('Acme status');
    expect(home).not.toContain('Demo status');
    const after = await holdings();
    expect(after).toEqual({
      companies: ['Acme'],
      pages: ['Acme status'],
      demoServices: 0,
      demoIncidents: 0,
      acmeIncidents: ['Our own'],
      monitors: [501],
      boards: ['vendors'],
      demoMeta: 0,
    });
    // The operator's own: the key, the incident, the page.
    const incidents = await third.api('GET', '/api/v2/services/acme-api/incidents', { key: 'acme-own-key' });
    expect(incidents.status).toBe(200);
    expect(incidents.body.data.map((i: { attributes: { title: string } }) => i.attributes.title)).toEqual(['Our own']);
    expect(visibleText(await (await fetch(`${third.url}/status/acme`)).text())).toContain('Our own');
    await stop(third);

    // Starting again changes nothing more.
    await start(`demo: false\n${ACME}`);
    expect(await holdings()).toEqual(after);
  });

  it('a value other than true or false is a config error at its line, and the database is not touched', async () => {
    for (const value of ['"yes"', 'yes', '1']) {
      const file = join(dir, 'statusbot.yml');
      writeFileSync(file, `demo: ${value}\n`);
      const res = await runCli(['serve', '--port', '0', '--config', file, '--db', database.path], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(`statusbot: ${file} is not a valid statusbot config:\n  ${file}:1:7: demo must be a boolean\n`);
    }
    expect(await holdings()).toMatchObject({ companies: [], demoServices: 0 });
  });
});

describe('the start lines of statusbot serve', () => {
  /** A line of the log: JSON, as before. */
  const isJson = (line: string) => {
    try {
      return typeof JSON.parse(line).msg === 'string';
    } catch {
      return false;
    }
  };

  async function serve(args: string[]): Promise<Running & { port: number }> {
    const s = startCli(['serve', '--port', '0', '--db', database.path, ...args], { cwd: dir });
    running.push(s);
    const { port } = await s.listening();
    await waitUntil(() => s.out.stdout.includes('API docs:'), { what: 'the start lines' });
    return Object.assign(s, { port });
  }

  it('name the home, the demo page and the API reference; log lines stay JSON', async () => {
    const s = await serve([]);
    const base = `http://localhost:${s.port}`;
    const lines = s.out.stdout.split('\n').filter((l) => l.trim() !== '');
    // In a pipe, every line is JSON: the start lines are one record with the addresses as fields.
    for (const line of lines) expect(isJson(line), line).toBe(true);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => 'home' in r)).toMatchObject({
      home: `${base}/`,
      demo_page: `${base}/status/demo`,
      api_docs: `${base}/api/docs`,
    });
    // Each address answers as named.
    for (const [path, text] of [
      ['/', 'What to try'],
      ['/status/demo', 'Demo API'],
      ['/api/docs', 'statusbot API reference'],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${s.port}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain(text);
    }
  });

  it('from public_url, and without the demo page when demo: false', async () => {
    const file = join(dir, 'statusbot.yml');
    writeFileSync(file, 'public_url: https://status.example.com/\ndemo: false\n');
    const s = await serve(['--config', file]);
    expect(s.out.stdout).toContain('"home":"https://status.example.com/","api_docs":"https://status.example.com/api/docs"');
    expect(s.out.stdout).not.toContain('Demo page');
    expect(s.out.stdout).not.toMatch(/sb_[A-Za-z0-9_-]{16}/);
  });
});
