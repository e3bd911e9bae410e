import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statuspageSummary, statuspageIncidents } from '../../src/ingest/statuspage-payload.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { PAGES_CONFIG, visibleText } from '../helpers/pages.js';

describe('what a status page gives machines and trackers', () => {
  let t: TestServer;
  let incidentId: string;
  beforeAll(async () => {
    t = await startTestServer({ config: PAGES_CONFIG });
    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Queue <backlog> & "delays"', description: 'Messages are slow.', status: 'minor' },
    });
    incidentId = created.body.data.id;
    t.clock.advance(60_000);
    await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'identified', description: 'A stuck consumer.' } });
  });
  afterAll(async () => {
    await t.stop();
  });
  const get = (path: string) => fetch(`${t.url}${path}`);

  it('summary.json and incidents.json in the Statuspage shape', async () => {
    const res = await get('/status/acme/api/v2/summary.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const summary = await res.json();
    expect(statuspageSummary.safeParse(summary).success).toBe(true);
    expect(summary.page).toMatchObject({ name: 'Acme status', url: 'http://status.test/status/acme', time_zone: 'Etc/UTC' });
    expect(summary.status).toEqual({ indicator: 'minor', description: 'Minor Service Outage' });
    expect(summary.components.map((c: any) => [c.name, c.status])).toEqual([
      ['Acme API', 'degraded_performance'],
      ['Acme Web', 'operational'],
    ]);
    expect(summary.incidents).toHaveLength(1);
    expect(summary.incidents[0]).toMatchObject({ id: incidentId, name: 'Queue <backlog> & "delays"', status: 'identified', impact: 'minor' });
    expect(summary.incidents[0].incident_updates.map((u: any) => [u.status, u.body])).toEqual([
      ['identified', 'A stuck consumer.'],
      ['investigating', 'Messages are slow.'],
    ]);
    expect(summary.scheduled_maintenances).toEqual([]);
    const list = await (await get('/status/acme/api/v2/incidents.json')).json();
    expect(statuspageIncidents.safeParse(list).success).toBe(true);
    expect(list.incidents.map((i: any) => i.id)).toEqual([incidentId]);
  });

  it('Atom and RSS feeds, valid, one entry per incident update, escaped', async () => {
    for (const [path, type] of [
      ['/status/acme/feed.atom', 'application/atom+xml; charset=utf-8'],
      ['/status/acme/feed.rss', 'application/rss+xml; charset=utf-8'],
    ] as const) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      const text = await res.text();
      expect(XMLValidator.validate(text)).toBe(true);
      const doc = new XMLParser({ ignoreAttributes: false }).parse(text);
      const entries = path.endsWith('atom') ? doc.feed.entry : doc.rss.channel.item;
      expect(entries).toHaveLength(2);
      expect(entries[0].title).toBe('Queue <backlog> & "delays" (Acme API): identified');
    }
  });

  it('a badge that says the status in words', async () => {
    const res = await get('/status/acme/badge.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = await res.text();
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toContain('degraded');
  });

  it('every tracker_url opens a page, but an incident of a service on no status page answers 404 like an unknown id', async () => {
    const shown = await t.api('GET', `/api/v2/incidents/${incidentId}`);
    const tracker = new URL(shown.body.data.attributes.tracker_url);
    const page = await get(tracker.pathname);
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toContain('Queue <backlog> & "delays"');

    const hidden = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1003, title: 'Not public' } });
    const hiddenTracker = new URL(hidden.body.data.attributes.tracker_url);
    const answer = await get(hiddenTracker.pathname);
    expect(answer.status).toBe(404);
    const unknown = await get('/incidents/98765432');
    expect(unknown.status).toBe(404);
    expect(await answer.text()).toBe(await unknown.text());

    const service = await t.api('GET', '/api/v2/services/demo-service-major', { key: ACME_KEY });
    const servicePage = await get(new URL(service.body.data.attributes.tracker_url).pathname);
    expect(servicePage.status).toBe(200);
    const text = visibleText(await servicePage.text());
    expect(text).toContain('Major outage');
    expect(text).toContain('Incidents of the last 30 days');
    expect((await get('/services/no-such-service')).status).toBe(404);
  });

  it('is followed by another statusbot through its statuspage feed kind', async () => {
    const follower = await startTestServer({
      config: `
public_url: http://follower.test
rate_limit: { per_minute: 100000 }
services:
  - { urlname: acme-public, name: Acme (public page), feed: { kind: statuspage, url: "${t.url}/status/acme" }, poll: always }
companies:
  - name: Follower
    plan: business
    api_keys: ["follower-key-1"]
    monitored_services: [acme-public]
`,
    });
    try {
      follower.clock.set(t.clock.now().getTime());
      await follower.feeds.pollDue();
      const service = (await follower.api('GET', '/api/v2/services/acme-public', { key: 'follower-key-1' })).body.data.attributes;
      expect(service).toMatchObject({ status: 'minor', feed_error: null });
      const incidents = (await follower.api('GET', '/api/v2/services/acme-public/incidents', { key: 'follower-key-1' })).body.data;
      expect(incidents.map((i: any) => i.attributes.title)).toEqual(['Queue <backlog> & "delays"']);
      expect(incidents[0].attributes.url).toBe(`http://status.test/status/acme/incidents/${incidentId}`);
      const detail = (await follower.api('GET', `/api/v2/incidents/${incidents[0].id}`, { key: 'follower-key-1' })).body.data.attributes;
      expect(detail.updates.map((u: any) => u.description)).toEqual(['Messages are slow.', 'A stuck consumer.']);
    } finally {
      await follower.stop();
    }
  });
});
