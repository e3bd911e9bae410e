import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG, visibleText } from '../helpers/pages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

describe('public status pages', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: PAGES_CONFIG });
  });
  afterAll(async () => {
    await t.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });
  /** fetch() sets Host itself: a request for another host goes through node:http. */
  const getFromHost = (host: string, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${t.url}${path}`, { headers: { host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });

  it('shows the banner, every service with its status and 90 days, the vendors, the subscribe form and the feeds', async () => {
    const res = await get('/status/acme');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const text = visibleText(html);
    expect(text).toContain('All systems operational');
    expect(text).toMatch(/Acme API Operational/);
    expect(text).toMatch(/Acme Web Operational/);
    expect(text).not.toContain('Acme Secret');
    expect(html.match(/<ol class="days"/g)).toHaveLength(2);
    // 90 cells per service; the services were first shown today, so the 89 days before have no data (and nothing to focus).
    const services = html.slice(html.indexOf('id="services"'), html.indexOf('id="monitors"'));
    expect(services.match(/<li class="[onjmx]"/g)).toHaveLength(180);
    expect(services.match(/<li class="x"><\/li>/g)).toHaveLength(178);
    expect(text).toMatch(/22 Nov 2026: no incidents, 100% up/);
    expect(text).toMatch(/Demo Service \(major\) Major outage|Major outage/);
    expect(html).toContain('<form class="subscribe" method="post" action="/status/acme/subscribe">');
    expect(html).toContain('href="/status/acme/feed.atom"');
    expect(text).toContain('Monitors');
    expect(html).toContain('href="/status/acme/monitors/501"');
    expect(text).toContain('Checkout probe');
    expect(Buffer.byteLength(html)).toBeLessThan(60 * 1024);
  });

  it('shows an incident created through the API with its timeline, on the page and on its own page', async () => {
    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Elevated errors', description: 'We are looking into it.', status: 'major' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data.attributes.url).toBe(`http://status.test/status/acme/incidents/${id}`);
    const page = visibleText(await (await get('/status/acme')).text());
    expect(page).toContain('Major outage');
    expect(page).toContain('Current incidents');
    expect(page).toContain('Elevated errors');
    expect(page).toContain('We are looking into it.');

    const own = await get(`/status/acme/incidents/${id}`);
    expect(own.status).toBe(200);
    const ownText = visibleText(await own.text());
    expect(ownText).toContain('Elevated errors');
    expect(ownText).toContain('Investigating');

    const history = visibleText(await (await get('/status/acme/history')).text());
    expect(history).toContain('Elevated errors');
  });

  it('renders hostile titles as text', async () => {
    const title = '<script>alert(1)</script> "><img src=x onerror=alert(2)> مرحبا 🔥';
    const created = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title, description: '<b>bold?</b>' } });
    expect(created.status).toBe(201);
    const html = await (await get('/status/acme')).text();
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>bold?</b>');
    expect(visibleText(html)).toContain(title);
    expect(visibleText(html)).toContain('<b>bold?</b>');
  });

  it('answers 404 for unknown pages, unknown incidents and incidents of services the page does not show', async () => {
    expect((await get('/status/nope')).status).toBe(404);
    expect((await get('/status/acme/incidents/999999')).status).toBe(404);
    expect((await get('/status/acme/incidents/abc')).status).toBe(404);
    const secret = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1003, title: 'Private' } });
    expect((await get(`/status/acme/incidents/${secret.body.data.id}`)).status).toBe(404);
  });

  it('sends a content security policy, an ETag, and 304 for a page the client has', async () => {
    const first = await get('/status/acme');
    expect(first.headers.get('content-security-policy')).toContain("default-src 'self'");
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"/);
    expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const again = await get('/status/acme', { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Changes the page' } });
    const changed = await get('/status/acme', { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('serves one stylesheet, and a page with its own host at / for that Host', async () => {
    const html = await (await get('/status/acme')).text();
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(html)![1]!;
    expect(href).toMatch(/^\/assets\/statusbot\.css\?v=/);
    const css = await get(href);
    expect(css.status).toBe(200);
    expect(await css.text()).toContain('prefers-color-scheme:dark');
    expect(html.match(/<link rel="stylesheet"/g)).toHaveLength(1);
    // Nothing loaded from another host: one script, statusbot's own, and every <link> is statusbot's own.
    expect([...html.matchAll(/<[a-z][^<>]*\ssrc="([^"]*)"/gi)].map((m) => m[1])).toEqual([expect.stringMatching(/^\/assets\/statusbot\.js\?v=/)]);
    for (const [, linkHref] of html.matchAll(/<link [^>]*href="([^"]+)"/g)) expect(linkHref).toMatch(/^\//);

    const own = await getFromHost('status.acme.example', '/');
    expect(own.status).toBe(200);
    const ownHtml = own.body;
    expect(visibleText(ownHtml)).toContain('Acme on its own host');
    expect(ownHtml).toContain('action="/subscribe"');
    expect((await getFromHost('status.acme.example', '/history')).status).toBe(200);
    expect((await getFromHost('status.acme.example', '/healthz')).status).toBe(200);
  });
});
