import { afterEach, describe, expect, it } from 'vitest';
import { fixture, movedTo, startFakeStatusPages } from '../fakes/fake-status-pages.js';
import type { FakeStatusPages } from '../fakes/fake-status-pages.js';
import { visibleText } from '../helpers/pages.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const INTERVAL_MS = 60_000;
const HOUR_MS = 3_600_000;

const config = (pages: FakeStatusPages) => `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
ingestion: { interval_seconds: 60, timeout_seconds: 1, concurrency: 10 }
services:
  - { urlname: github, name: GitHub, status_page_url: https://www.githubstatus.com, feed: { kind: statuspage, url: "${pages.url}/github" } }
  - { urlname: flaky, name: Flaky Vendor, feed: { kind: statuspage, url: "${pages.url}/flaky" } }
  - { urlname: unread, name: Unread Vendor, feed: { kind: statuspage, url: "${pages.url}/unread" } }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api]
        third_party: [github, flaky, unread]
`;

/** GitHub's captured documents, dated now: all operational, or with its captured critical incident open (its components named). */
function github(now: Date, options: { open?: boolean; maintenance?: Record<string, unknown> } = {}) {
  const summary = JSON.parse(movedTo(fixture('statuspage-github-summary.json'), now));
  const incidents = JSON.parse(movedTo(fixture('statuspage-github-incidents.json'), new Date(now.getTime() - 86_400_000)));
  if (options.open) {
    const critical = JSON.parse(movedTo(fixture('statuspage-github-incident-critical.json'), now));
    critical.id = 'openincident1';
    critical.status = 'investigating';
    critical.resolved_at = null;
    critical.incident_updates = critical.incident_updates.slice(-1);
    critical.incident_updates[0].status = 'investigating';
    incidents.incidents.unshift(critical);
    summary.incidents = [critical];
    summary.status = { indicator: 'critical', description: 'Major System Outage' };
  }
  if (options.maintenance) summary.scheduled_maintenances = [options.maintenance];
  return { summary: JSON.stringify(summary), incidents: JSON.stringify(incidents) };
}

function serve(pages: FakeStatusPages, name: string, docs: { summary: string; incidents: string }) {
  pages.set(`/${name}/api/v2/summary.json`, { body: docs.summary });
  pages.set(`/${name}/api/v2/incidents.json`, { body: docs.incidents });
}

let pages: FakeStatusPages;
let s: TestServer;
afterEach(async () => {
  await s?.stop();
  await pages?.close();
});

async function start(): Promise<TestServer> {
  pages = await startFakeStatusPages();
  s = await startTestServer({ config: config(pages) });
  return s;
}

const text = async (path: string) => {
  const res = await fetch(`${s.url}${path}`);
  expect(res.status, path).toBe(200);
  return visibleText(await res.text());
};
/** No page's markup (text, attributes, head) names a feed's address or how its read failed. */
async function expectNoFeedDetail(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const html = await (await fetch(`${s.url}${path}`)).text();
    expect(html, path).not.toContain(new URL(pages.url).host);
    expect(html, path).not.toMatch(/HTTP \d{3}|\bE(NOTFOUND|CONNREFUSED|CONNRESET|TIMEDOUT|AI_AGAIN)\b|\/api\/v2\/incidents\.json/);
  }
}

/** The card of a vendor in the page's "Services we depend on". */
function vendorCard(page: string, name: string, next: string): string {
  const vendors = page.slice(page.indexOf('Services we depend on'));
  const from = vendors.indexOf(`${name} `);
  const to = vendors.indexOf(next, from + name.length);
  return vendors.slice(from, to === -1 ? undefined : to);
}

describe('vendors on status pages and tracker pages state only what statusbot read', () => {
  it('says No data with the reason for a vendor never read, one that cannot be read, and one failing for over three intervals', async () => {
    await start();
    // Nothing read yet: no vendor is Operational, each says why; the page's own status is its own.
    const before = await text('/status/acme');
    expect(before).toContain('All systems operational');
    expect(before).toContain('Third-party: GitHub — No data; Flaky Vendor — No data; Unread Vendor — No data');
    const vendors = before.slice(before.indexOf('Services we depend on'));
    expect(vendors).toContain("GitHub No data No data: the vendor's status feed has not been read yet");
    expect(vendors).not.toContain('Operational');
    const tracker = await text('/services/github');
    expect(tracker).toContain("GitHub No data No data: the vendor's status feed has not been read yet");
    expect(tracker).not.toContain('Operational');

    // Read: GitHub with an open incident, Flaky all well; Unread answers 404 (never read successfully).
    serve(pages, 'github', github(s.clock.now(), { open: true }));
    serve(pages, 'flaky', github(s.clock.now()));
    expect(await s.feeds.pollDue()).toBe(3);
    const read = await text('/status/acme');
    expect(read).toContain('All systems operational');
    expect(read).toContain('Third-party: GitHub — Major outage; Unread Vendor — No data');
    expect(vendorCard(read, 'GitHub', 'Flaky Vendor')).toContain(
      'GitHub Major outage Incident with GitHub Actions Affected: API Requests, Issues, Actions, Pages',
    );
    expect(vendorCard(read, 'Flaky Vendor', 'Unread Vendor')).toMatch(/^Flaky Vendor Operational\s*$/);
    // The public reads a plain reason; the feed's address and the HTTP status are for operators.
    expect(read).toContain("Unread Vendor No data No data: the vendor's status feed could not be read");
    expect(await text('/services/unread')).toContain("Unread Vendor No data No data: the vendor's status feed could not be read");
    await expectNoFeedDetail(['/status/acme', '/services/unread']);

    // Flaky fails from now on: still its last status while that is recent, No data after three intervals.
    pages.set('/flaky/api/v2/summary.json', { status: 503, body: 'unavailable' });
    s.clock.advance(INTERVAL_MS * 1.2);
    await s.feeds.pollDue();
    expect(vendorCard(await text('/status/acme'), 'Flaky Vendor', 'Unread Vendor')).toMatch(/^Flaky Vendor Operational\s*$/);
    s.clock.advance(INTERVAL_MS * 2);
    await s.feeds.pollDue();
    const stale = await text('/status/acme');
    expect(vendorCard(stale, 'Flaky Vendor', 'Unread Vendor')).toMatch(
      /^Flaky Vendor No data No data: the vendor's status feed could not be read since 22 Nov 2026, 10:02 UTC\s*$/,
    );
    expect(stale).toContain('Third-party: GitHub — Major outage; Flaky Vendor — No data; Unread Vendor — No data');
    const flakyTracker = await text('/services/flaky');
    expect(flakyTracker).toContain("Flaky Vendor No data No data: the vendor's status feed could not be read since 22 Nov 2026, 10:02 UTC");
    await expectNoFeedDetail(['/status/acme', '/services/flaky']);
    // Its components are as old as its status: none is stated.
    const components = flakyTracker.slice(flakyTracker.indexOf('Components'), flakyTracker.indexOf('Incidents of the last 30 days'));
    expect(components).toContain('Git Operations No data');
    expect(components).not.toMatch(/operational/i);
    // The API keeps the last status read, with the rest told by its fields: its key holder gets the detail.
    const api = (await s.api('GET', '/api/v2/services/flaky')).body.data.attributes;
    expect(api.status).toBe('ok');
    expect(api.feed_error).toBe(`${pages.url}/flaky/api/v2/summary.json: HTTP 503`);

    // GitHub, read at every poll, is known all along; its tracker page names the incident's components.
    const githubTracker = await text('/services/github');
    expect(githubTracker).toContain('GitHub Major outage');
    expect(githubTracker).toContain('Incident with GitHub Actions');
    expect(githubTracker).toContain('Affected: API Requests, Issues, Actions, Pages');
    // The vendors never change the page's own status, nor its badge or summary.json.
    expect(await (await fetch(`${s.url}/status/acme/badge.svg`)).text()).toContain('status: operational');
    const summary = await (await fetch(`${s.url}/status/acme/api/v2/summary.json`)).json();
    expect(summary.status).toEqual({ indicator: 'none', description: 'All Systems Operational' });
    expect(summary.components.map((c: any) => c.name)).toEqual(['Acme API']);
  });

  it("shows a vendor's upcoming maintenance on its tracker page, with the components it affects", async () => {
    await start();
    const now = s.clock.now().getTime();
    serve(
      pages,
      'github',
      github(s.clock.now(), {
        maintenance: {
          id: 'maint-db',
          name: 'Database upgrade',
          status: 'scheduled',
          impact: 'maintenance',
          scheduled_for: new Date(now + 16 * HOUR_MS).toISOString(),
          scheduled_until: new Date(now + 18 * HOUR_MS).toISOString(),
          shortlink: 'https://stspg.io/maint-db',
          created_at: new Date(now - HOUR_MS).toISOString(),
          updated_at: new Date(now - HOUR_MS).toISOString(),
          incident_updates: [],
          components: [
            { id: 'c1', name: 'API Requests' },
            { id: 'c2', name: 'Webhooks' },
          ],
        },
      }),
    );
    serve(pages, 'flaky', github(s.clock.now()));
    serve(pages, 'unread', github(s.clock.now()));
    await s.feeds.pollDue();
    const tracker = await text('/services/github');
    expect(tracker).toContain('GitHub Operational');
    expect(tracker).toContain('Scheduled maintenance Database upgrade Scheduled 23 Nov 2026, 02:02–04:02 UTC Affects: API Requests, Webhooks');
    // Every vendor read: nothing in trouble beside the banner.
    const page = await text('/status/acme');
    expect(page).toContain('All systems operational');
    expect(page).not.toContain('Third-party:');
    expect(page).not.toContain('No data');
  });
});
