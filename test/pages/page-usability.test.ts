import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningClock } from '../../src/domain/clock.js';
import { visibleText } from '../helpers/pages.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const DAY_MS = 86_400_000;

const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
      - { id: 1003, name: Acme Quiet, urlname: acme-quiet }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api, acme-web]
      - name: Acme quiet
        slug: quiet
        services: [acme-quiet]
      - name: Acme soon
        slug: soon
`;

describe('status page usability: skip link, one Tab stop per bar, the banner, incidents, times, empty states', () => {
  let t: TestServer;
  beforeAll(async () => {
    // The services were shown 100 days before T0: every day of their bars has data.
    t = await startTestServer({ config: CONFIG, clock: runningClock(Date.parse(T0) - 100 * DAY_MS) });
    t.clock.set(Date.parse(T0) - 3 * DAY_MS);
    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Orders API errors', description: 'Some orders fail.', status: 'major' },
    });
    expect(created.status).toBe(201);
    t.clock.advance(2 * 3_600_000 + 5 * 60_000);
    const resolved = await t.api('PATCH', `/api/v2/incidents/${created.body.data.id}`, {
      body: { resolution_stage: 'resolved', description: 'Fixed.' },
    });
    expect(resolved.status).toBe(200);
    t.clock.set(T0);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const page = async (path: string) => {
    const res = await fetch(`${t.url}${path}`);
    expect(res.status, path).toBe(200);
    return res.text();
  };

  it('starts every public page with a skip link to its main content', async () => {
    for (const path of ['/status/acme', '/status/acme/history', '/status/soon', '/status/acme/nope']) {
      const res = await fetch(`${t.url}${path}`);
      const html = await res.text();
      const body = html.slice(html.indexOf('<body>'));
      expect(body, path).toMatch(/^<body><a class="skip" href="#main">Skip to content<\/a>/);
      expect(html, path).toContain('<main id="main" tabindex="-1">');
    }
  });

  it('gives each bar one Tab stop (today) and every day in words to screen readers', async () => {
    const html = await page('/status/acme');
    const bars = [...html.matchAll(/<ol class="days" aria-label="([^"]+)">([\s\S]*?)<\/ol>/g)];
    expect(bars.map((b) => b[1])).toEqual(['Acme API, the last 90 days', 'Acme Web, the last 90 days']);
    for (const [, , cells] of bars) {
      expect(cells!.match(/<li /g)).toHaveLength(90);
      expect(cells!.match(/tabindex="0"/g)).toHaveLength(1);
      expect(cells!.match(/tabindex="-1"/g)).toHaveLength(89);
      // The Tab stop is today's cell, the last.
      expect(cells).toMatch(/<li class="o" tabindex="0"><p>22 Nov 2026: no incidents, 100% up<\/p><\/li>$/);
    }
    expect(visibleText(html)).toMatch(/19 Nov 2026: Major outage, \d+\.\d\d% up Major: Orders API errors/);
  });

  it('serves the page script from its own origin, cached for long, as the CSP allows', async () => {
    const res = await fetch(`${t.url}/status/acme`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const src = /<script src="([^"]+)" defer><\/script>/.exec(html)![1]!;
    expect(src).toMatch(/^\/assets\/statusbot\.js\?v=[0-9a-f]{12}$/);
    const script = await fetch(`${t.url}${src}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toContain('ArrowLeft');
    const again = await fetch(`${t.url}${src}`, { headers: { 'If-None-Match': script.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('says the status once on the banner, with a Subscribe link to the form', async () => {
    const html = await page('/status/acme');
    const banner = /<div class="banner ok">([\s\S]*?)<\/div>/.exec(html)![1]!;
    expect(visibleText(banner)).toBe('All systems operational Subscribe');
    expect(banner).toContain('<a href="#subscribe">Subscribe</a>');
    expect(html).toContain('<h2 id="subscribe">');
  });

  it('keeps a resolved incident severity and says how long it lasted', async () => {
    const text = visibleText(await page('/status/acme'));
    expect(text).toContain('Resolved in the last 7 days Orders API errors Major Resolved · lasted 2 h 5 min');
    const history = visibleText(await page('/status/acme/history'));
    expect(history).toContain('Orders API errors Major Resolved · lasted 2 h 5 min Acme API');
    const id = /href="\/status\/acme\/incidents\/(\d+)"/.exec(await page('/status/acme'))![1];
    const incident = visibleText(await page(`/status/acme/incidents/${id}`));
    expect(incident).toContain('Orders API errors Major Resolved · lasted 2 h 5 min · Acme API');
    expect(incident).toContain('Began 19 Nov 2026, 10:02 UTC · resolved 19 Nov 2026, 12:07 UTC · lasted 2 h 5 min');
  });

  it('renders times in UTC inside <time datetime>, for the script to show in the reader’s zone', async () => {
    const html = await page('/status/acme');
    expect(html).toMatch(/<time datetime="2026-11-19T10:02:00\.\d{3}Z">19 Nov 2026, 10:02 UTC<\/time>/);
  });

  it('says plainly when a page has no incidents, and never dates an empty page or its feeds 1970', async () => {
    const quiet = visibleText(await page('/status/quiet'));
    expect(quiet).toContain('Incidents No incidents in the last 90 days.');
    expect(quiet).not.toContain('Resolved in the last 7 days');

    const soon = visibleText(await page('/status/soon'));
    expect(soon).toContain('This page shows nothing yet');
    expect(soon).toContain('This page shows no services yet.');
    expect(soon).not.toMatch(/operational|1970|Updated/);
    for (const feed of ['/status/soon/feed.atom', '/status/soon/feed.rss']) {
      const res = await fetch(`${t.url}${feed}`);
      const xml = await res.text();
      expect(xml, feed).not.toContain('1970');
      // The page's creation (the server's start, 100 days before now).
      expect(xml, feed).toMatch(/<updated>2026-08-14T10:\d\d:\d\d\.\d{3}Z<\/updated>|<lastBuildDate>Fri, 14 Aug 2026 10:\d\d:\d\d GMT<\/lastBuildDate>/);
      expect(res.headers.get('last-modified'), feed).toMatch(/^Fri, 14 Aug 2026 10:\d\d:\d\d GMT$/);
    }
    for (const document of ['summary.json', 'status.json', 'components.json', 'incidents.json']) {
      const res = await fetch(`${t.url}/status/soon/api/v2/${document}`);
      expect(res.status, document).toBe(200);
      const body = (await res.json()) as { page: { updated_at: string } };
      expect(body.page.updated_at, document).toMatch(/^2026-08-14T10:/);
    }
  });
});
