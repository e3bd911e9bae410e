import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { visibleText } from '../helpers/pages.js';
import { ACME_KEY, STANDARD_CONFIG, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

const DEMO_CONFIG = 'public_url: http://status.test\n';

let servers: TestServer[] = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const d of databases.splice(0)) await d.drop();
});

async function start(config: string, dbPath?: string): Promise<TestServer> {
  const s = await startTestServer({ config, ...(dbPath ? { dbPath } : {}) });
  servers.push(s);
  return s;
}

async function page(s: TestServer, path: string): Promise<{ html: string; text: string; res: Response }> {
  const res = await fetch(`${s.url}${path}`);
  expect(res.status, path).toBe(200);
  const html = await res.text();
  return { html, text: visibleText(html), res };
}

/** The text of the home's links, by address. */
const links = (html: string): Record<string, string> => Object.fromEntries([...html.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((m) => [m[1]!, m[2]!]));

/** fetch() sets Host itself: a request for another host goes through node:http. */
const getFromHost = (s: TestServer, host: string, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${s.url}${path}`, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });

describe('GET / of the server', () => {
  it('with the demo on: links the demo page, the API reference, the API description and the health check, and says what to try with the demo key', async () => {
    const s = await start(DEMO_CONFIG);
    expect(s.demoKey).toMatch(/^sb_/);
    const { html, text, res } = await page(s, '/');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=30, must-revalidate');
    expect(res.headers.get('etag')).toMatch(/^".+"$/);
    expect(html).toMatch(/^<!doctype html><html lang="en">/);
    expect(links(html)).toEqual({
      '/status/demo': 'Demo status',
      '/api/docs': 'API reference',
      '/api/v2/openapi.json': 'OpenAPI description',
      '/healthz': 'Health check',
    });
    expect(text).toContain('What to try');
    expect(text).toContain(`curl -s -X POST http://status.test/api/v2/incidents \\ -H "Authorization: Bearer ${s.demoKey}"`);
    expect(text).toContain('Chat is off. To try it, set SLACK_BOT_TOKEN');
    // The test server runs no jobs: the page says so, rather than promising a read.
    expect(text).toContain('This server reads no vendor feeds (its feeds job is off), so GitHub says No data on the demo page.');

    // The curl line works as shown, and its incident is on the demo page.
    const body = JSON.parse(/-d '([^']+)'/.exec(text)![1]!);
    const created = await s.api('POST', '/api/v2/incidents', { key: s.demoKey, body });
    expect(created.status).toBe(201);
    const demo = await page(s, '/status/demo');
    expect(demo.text).toContain('Current incidents');
    expect(demo.text).toContain('Checkout errors');

    // HEAD as GET, without a body; the page's ETag answers 304.
    const head = await fetch(`${s.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
    const again = await fetch(`${s.url}/`);
    const etag = again.headers.get('etag')!;
    expect((await fetch(`${s.url}/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    // Other methods: 405 naming GET, as other pages answer.
    const post = await fetch(`${s.url}/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(visibleText(await post.text())).toContain('POST is not allowed here; use GET.');
  });

  it('on a later start of the same database: no key on the page, only how to make one', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const first = await start(DEMO_CONFIG, database.path);
    const key = first.demoKey!;
    await first.stop();
    servers = servers.filter((s) => s !== first);

    const second = await start(DEMO_CONFIG, database.path);
    expect(second.demoKey).toBeNull();
    const { html, text } = await page(second, '/');
    expect(html).not.toContain(key);
    expect(text).not.toMatch(/sb_[A-Za-z0-9_-]{16,}/);
    expect(text).toContain('-H "Authorization: Bearer KEY"');
    expect(text).toContain("KEY is the demo company's API key, printed once when the demo was made. A new one: statusbot key create --company Demo");
  });

  it('with demo: false: the links, and no demo block', async () => {
    const s = await start(`${DEMO_CONFIG}demo: false\n`);
    const { html, text } = await page(s, '/');
    expect(links(html)).toEqual({ '/api/docs': 'API reference', '/api/v2/openapi.json': 'OpenAPI description', '/healthz': 'Health check' });
    expect(text).toContain('No status pages yet');
    expect(text).not.toContain('What to try');
    expect(text).not.toContain('demo');
    expect(text).not.toContain('Bearer sb_');
  });

  it("lists a config's pages by name, and a page on a host of its own still answers at that host's /", async () => {
    const s = await start(STANDARD_CONFIG);
    const { html, text } = await page(s, '/');
    expect(links(html)['/status/acme-status']).toBe('Acme status');
    expect(text).toContain('Acme status (on its own host: https://status.acme.example)');
    // A config with companies gets no demo company: nothing to try, and no key of theirs.
    expect(text).not.toContain('What to try');
    expect(html).not.toContain(ACME_KEY);

    const own = await getFromHost(s, 'status.acme.example', '/');
    expect(own.status).toBe(200);
    expect(visibleText(own.body)).toContain('Acme status');
    expect(visibleText(own.body)).not.toContain('API reference');
  });
});

describe('the demo status page', () => {
  it('shows the Demo API, the demo monitor, each demo service with its status, and GitHub as No data until its feed is read', async () => {
    const s = await start(DEMO_CONFIG);
    const { text } = await page(s, '/status/demo');
    expect(text).toMatch(/^Skip to content Demo status /);
    expect(text).toContain('Demo API Operational');
    expect(text).toContain('statusbot health No data yet');
    const vendors = text.slice(text.indexOf('Services we depend on'));
    expect(vendors).toMatch(/^Services we depend on Demo Service (Operational|Degraded|Major outage) /);
    expect(vendors).toContain('Demo Service (always ok) Operational');
    expect(vendors).toContain('Demo Service (minor outage) Degraded');
    expect(vendors).toContain('Demo Service (major outage) Major outage');
    expect(vendors).toContain("GitHub No data No data: the vendor's status feed has not been read yet");
    expect(vendors).not.toContain('GitHub Operational');
  });
});
