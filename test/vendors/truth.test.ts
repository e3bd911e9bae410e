import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/domain/clock.js';
import { listFeeds } from '../../src/domain/vendors/vendor-feeds.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { fixture, movedTo, startFakeStatusPages } from '../fakes/fake-status-pages.js';
import type { FakeStatusPages } from '../fakes/fake-status-pages.js';
import { ACME_TEAM, slackEnv } from '../helpers/slack.js';
import { ACME_BOARD, ACME_KEY, FAST_DELIVERY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { LogRecord } from '../helpers/loggers.js';
import type { Logger } from '../../src/infrastructure/logger.js';

/** Every vendor statusbot shows, it reads; what it has not read (or no longer reads), it says it does not know. */

const DIGESTS = 'CDIGESTS';
const FOLLOWERS = 'CFOLLOWERS';
const INTERVAL_MS = 60_000;

/** GitHub's captured summary, dated now, with a maintenance announced for tomorrow. */
function github(now: Date) {
  const summary = JSON.parse(movedTo(fixture('statuspage-github-summary.json'), now));
  const tomorrow = now.getTime() + 86_400_000;
  summary.scheduled_maintenances = [
    {
      id: 'maint-upgrade',
      name: 'Database upgrade',
      status: 'scheduled',
      impact: 'maintenance',
      shortlink: 'https://stspg.io/maint-upgrade',
      scheduled_for: new Date(tomorrow).toISOString(),
      scheduled_until: new Date(tomorrow + 7_200_000).toISOString(),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      incident_updates: [],
      components: [{ name: 'Git Operations' }, { name: 'API Requests' }],
    },
  ];
  return { summary: JSON.stringify(summary), incidents: JSON.stringify({ page: summary.page, incidents: [] }) };
}

function config(pages: FakeStatusPages) {
  return `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
ingestion: { interval_seconds: 60, timeout_seconds: 1, concurrency: 10 }
services:
  - urlname: github
    name: GitHub
    feed: { kind: statuspage, url: ${pages.url}/github }
  - urlname: render
    name: Render
    feed: { kind: rss, url: ${pages.url}/render/history.rss }
  - urlname: unshown
    name: Unshown
    feed: { kind: statuspage, url: ${pages.url}/unshown }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    boards:
      - id: ${ACME_BOARD}
        name: Vendors
        urlname: vendors
        services: [{ urlname: github }]
    status_pages:
      - { name: Acme status, slug: acme, third_party: [render] }
    slack: { team_id: ${ACME_TEAM} }
    channels:
      - slack: ${DIGESTS}
        boards: [{ board: vendors, schedule: "* * * * *", timezone: UTC }]
      - { slack: ${FOLLOWERS}, services: [render, github] }
`;
}

const RENDER_FEED = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Render Status - Incident History</title><link>https://status.render.com</link>
<description>Statuspage</description></channel></rss>`;

let pages: FakeStatusPages;
let slack: FakeSlack;
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await slack?.close();
  await pages?.close();
});

async function start(logger?: Logger) {
  pages = await startFakeStatusPages();
  slack = await startFakeSlack();
  const docs = github(new Date());
  pages.set('/github/api/v2/summary.json', { body: docs.summary });
  pages.set('/github/api/v2/incidents.json', { body: docs.incidents });
  pages.set('/render/history.rss', { body: RENDER_FEED, contentType: 'application/rss+xml' });
  const s = await startTestServer({ config: config(pages), env: slackEnv(slack), delivery: FAST_DELIVERY, clock: undefined, ...(logger ? { logger } : {}) });
  servers.push(s);
  return s;
}

/** The board's digest as it reaches the channel: posts one, waits for it, and gives its sections' text. */
async function digest(s: TestServer): Promise<string> {
  const before = slack.messages.get(DIGESTS)?.length ?? 0;
  expect(await s.scheduler.runSlot('digests', s.clock.now())).toBe(true);
  const [message] = await slack.waitFor(() => {
    const posted = slack.messages.get(DIGESTS) ?? [];
    return posted.length > before ? posted.slice(before) : null;
  });
  return (message!.blocks as any[])
    .filter((b) => b.type === 'section' || b.type === 'context')
    .map((b) => b.text?.text ?? b.elements.map((e: any) => e.text).join(' '))
    .join('\n');
}

describe('watched vendors', () => {
  it('reads a vendor that only a status page shows as a third party; one that nothing shows stays unread', async () => {
    const s = await start();
    const watched = (await listFeeds(s.ctx)).filter((f) => f.watched).map((f) => f.urlname);
    expect(watched).toContain('render');
    expect(watched).toContain('github');
    expect(watched).not.toContain('unshown');
    await s.feeds.pollDue();
    expect(pages.hits('/render/history.rss')).toHaveLength(1);
    expect(pages.hits('/unshown/api/v2/summary.json')).toEqual([]);
    const render = (await s.api('GET', '/api/v2/services/render')).body.data.attributes;
    expect(render.last_checked_at).not.toBeNull();
  });
});

describe('a digest', () => {
  it('says "No data" for a vendor never read, its status once read, and its upcoming maintenance', async () => {
    const s = await start();
    const unread = await digest(s);
    expect(unread).toContain(":white_circle: <http://status.test/services/github|GitHub> — No data: the vendor's status feed has not been read yet");
    expect(unread).toContain('1 of 1 without data');
    expect(unread).not.toContain('operational');

    await s.feeds.pollDue();
    s.clock.advance(60_000);
    const read = await digest(s);
    expect(read).toContain(':white_check_mark: <http://status.test/services/github|GitHub>');
    expect(read).toContain('all services operational');
    expect(read).toMatch(
      /:wrench: <https:\/\/stspg\.io\/maint-upgrade\|Database upgrade>, from <!date\^\d+\^[^>]+> to <!date\^\d+\^[^>]+> _\(Git Operations, API Requests\)_/,
    );
  });

  it('says "No data" and since when once the feed has failed for more than three intervals, the error left to operators', async () => {
    const s = await start();
    await s.feeds.pollDue();
    pages.set('/github/api/v2/summary.json', { status: 503, body: 'down' });
    // Within three intervals of the last good read the status still stands.
    s.clock.advance(2 * INTERVAL_MS);
    await s.feeds.pollDue();
    expect(await digest(s)).toContain(':white_check_mark: <http://status.test/services/github|GitHub>');
    for (let i = 0; i < 3; i += 1) {
      s.clock.advance(INTERVAL_MS);
      await s.feeds.pollDue();
    }
    const stale = await digest(s);
    expect(stale).toMatch(
      /:white_circle: <http:\/\/status\.test\/services\/github\|GitHub> — No data: the vendor's status feed could not be read since \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
    );
    expect(stale).not.toMatch(/HTTP 503|summary\.json/);
    // The API keeps the last status read, and says what the rest is: its key holder reads the error itself.
    const api = (await s.api('GET', '/api/v2/services/github')).body.data.attributes;
    expect(api.status).toBe('ok');
    expect(api.feed_error).toMatch(/\/github\/api\/v2\/summary\.json: HTTP 503$/);
  });
});

const settled = (s: TestServer) =>
  slack.waitFor(async () => (await s.ctx.db.selectFrom('outbox').select('id').where('state', '=', 'pending').execute()).length === 0);
const incidentsOf = async (s: TestServer, urlname: string) =>
  (await s.api('GET', `/api/v2/services/${urlname}/incidents`)).body.data as { id: string; attributes: Record<string, any> }[];

function undatedFeed(description: string) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Render Status</title><link>https://status.render.com</link>
<item><title>Degraded API performance</title><guid isPermaLink="false">render-incident-1</guid>
<link>https://status.render.com/incidents/render-incident-1</link><description>${description}</description></item>
</channel></rss>`;
}

describe('an item without a date', () => {
  it('keeps the time it was first seen, and changes only when its own content does', async () => {
    const s = await start();
    pages.set('/render/history.rss', { body: undatedFeed('We are investigating slow API responses.'), contentType: 'application/rss+xml', etag: false });
    await s.feeds.pollDue();
    const [first] = await incidentsOf(s, 'render');
    const seenAt = first!.attributes.created_at;
    expect(Date.parse(seenAt)).toBeLessThanOrEqual(s.clock.now().getTime());

    // Read again and again, unchanged: same times, nothing said.
    for (let i = 0; i < 3; i += 1) {
      s.clock.advance(INTERVAL_MS * 1.2);
      await s.feeds.pollDue();
    }
    await settled(s);
    const [again] = await incidentsOf(s, 'render');
    expect(again!.attributes).toMatchObject({ created_at: seenAt, resolved: false });
    expect(slack.messages.get(FOLLOWERS) ?? []).toEqual([]);

    // Its text changes: one update, at the time of that read; the incident keeps its first-seen time.
    s.clock.advance(INTERVAL_MS * 1.2);
    const changedAt = s.clock.now().getTime();
    pages.set('/render/history.rss', { body: undatedFeed('A fix is being rolled out.'), contentType: 'application/rss+xml', etag: false });
    await s.feeds.pollDue();
    await settled(s);
    const full = (await s.api('GET', `/api/v2/incidents/${first!.id}`)).body.data.attributes;
    expect(full.created_at).toBe(seenAt);
    expect(Date.parse(full.updated_at)).toBeGreaterThanOrEqual(changedAt);
    expect(full.description).toBe('A fix is being rolled out.');
    expect((slack.messages.get(FOLLOWERS) ?? []).filter((m) => m.threadTs === null)).toHaveLength(1);
  });
});

describe('an item a reader cannot read', () => {
  it('is left out and named (feeds, warn log); the rest is applied, and an open incident it hides stays open', async () => {
    const records: LogRecord[] = [];
    const s = await start(recordingLogger(records));
    const now = new Date();
    const summary = JSON.parse(github(now).summary);
    const critical = JSON.parse(movedTo(fixture('statuspage-github-incident-critical.json'), now));
    critical.id = 'openincident1';
    critical.status = 'investigating';
    critical.resolved_at = null;
    critical.incident_updates = critical.incident_updates.slice(-1);
    critical.incident_updates[0].status = 'investigating';
    const other = { ...critical, id: 'openincident2', name: 'Webhooks delayed', impact: 'minor' };
    const set = (incidents: unknown[]) => {
      pages.set('/github/api/v2/summary.json', { body: JSON.stringify({ ...summary, incidents: [] }), etag: false });
      pages.set('/github/api/v2/incidents.json', { body: JSON.stringify({ page: summary.page, incidents }), etag: false });
    };
    set([critical, other]);
    await s.feeds.pollDue();
    const open = async () =>
      (await incidentsOf(s, 'github'))
        .filter((i) => !i.attributes.resolved)
        .map((i) => i.attributes.title)
        .sort();
    expect(await open()).toEqual([critical.name, 'Webhooks delayed'].sort());

    // The first incident's date becomes unreadable; the second resolves: the resolution is applied all the same.
    s.clock.advance(INTERVAL_MS * 1.2);
    const resolvedAt = new Date(s.clock.now().getTime() - 1_000).toISOString();
    set([
      { ...critical, created_at: 'soon' },
      {
        ...other,
        status: 'resolved',
        resolved_at: resolvedAt,
        incident_updates: [
          { ...other.incident_updates[0], id: 'u2', status: 'resolved', body: 'Fixed.', created_at: resolvedAt, display_at: resolvedAt },
          ...other.incident_updates,
        ],
      },
    ]);
    await s.feeds.pollDue();
    expect(await open()).toEqual([critical.name]);
    const [feed] = (await listFeeds(s.ctx)).filter((f) => f.urlname === 'github');
    expect(feed!.skipped).toEqual([expect.stringMatching(/^incidents\.json: incidents\[0\] \(id "openincident1"\): created_at/)]);
    expect(feed!.lastError).toBeNull();
    expect(records.filter((r) => r.level === 'warn').map((r) => r.message)).toEqual([
      expect.stringMatching(/^feed github: 1 item\(s\) left out: incidents\.json: incidents\[0\] \(id "openincident1"\)/),
    ]);
  });
});

describe("a Statuspage history feed's item", () => {
  it('is one incident whose dated timeline grows from read to read, from its first stage to its resolution', async () => {
    // GitHub's history.atom as saved on three days (test/fixtures/status-feeds/rss-atom/SOURCES.md), read at those times.
    const clock = manualClock('2026-04-29T06:00:00Z');
    pages = await startFakeStatusPages();
    slack = await startFakeSlack();
    const s = await startTestServer({
      clock,
      config: `
public_url: http://status.test
ingestion: { interval_seconds: 60 }
services:
  - { urlname: github-history, name: GitHub, feed: { kind: atom, url: "${pages.url}/github/history.atom" } }
companies:
  - { name: Acme, api_keys: ["${ACME_KEY}"], monitored_services: [github-history] }
`,
    });
    servers.push(s);
    const read = async (day: string) => {
      pages.set('/github/history.atom', { body: fixture(`rss-atom/statuspage-github-history-${day}.atom`), contentType: 'application/atom+xml' });
      await s.feeds.pollDue();
      const [incident, ...others] = await incidentsOf(s, 'github-history');
      expect(others).toEqual([]);
      return (await s.api('GET', `/api/v2/incidents/${incident!.id}`)).body.data;
    };

    const first = await read('2026-04-29');
    expect(first.attributes).toMatchObject({ created_at: '2026-04-28T14:17:00.000Z', resolved: false, resolved_at: null });
    expect(first.attributes.updates).toHaveLength(6);

    clock.set('2026-04-30T06:00:00Z');
    const second = await read('2026-04-30');
    expect(second.id).toBe(first.id);
    expect(second.attributes.updates).toHaveLength(8);
    expect(second.attributes.updates.slice(0, 6)).toEqual(first.attributes.updates);

    clock.set('2026-05-01T06:00:00Z');
    const third = await read('2026-05-01');
    expect(third.id).toBe(first.id);
    expect(third.attributes).toMatchObject({ created_at: '2026-04-28T14:17:00.000Z', resolved: true, resolved_at: '2026-05-01T04:15:00.000Z' });
    expect(third.attributes.updates.map((u: any) => [u.created_at.slice(0, 16), u.status])).toEqual([
      ['2026-04-28T14:17', 'investigating'],
      ['2026-04-28T14:51', 'investigating'],
      ['2026-04-28T15:58', 'investigating'],
      ['2026-04-28T21:43', 'investigating'],
      ['2026-04-28T22:46', 'investigating'],
      ['2026-04-29T00:40', 'investigating'],
      ['2026-04-29T22:22', 'investigating'],
      ['2026-04-30T03:49', 'investigating'],
      ['2026-05-01T04:11', 'investigating'],
      ['2026-05-01T04:15', 'resolved'],
    ]);
  });

  it('still takes its resolution when the resolution comes in after the 30-day window', async () => {
    const clock = manualClock('2026-04-29T06:00:00Z');
    pages = await startFakeStatusPages();
    slack = await startFakeSlack();
    const s = await startTestServer({
      clock,
      config: `
public_url: http://status.test
services:
  - { urlname: github-history, name: GitHub, feed: { kind: atom, url: "${pages.url}/github/history.atom" } }
companies:
  - { name: Acme, api_keys: ["${ACME_KEY}"], monitored_services: [github-history] }
`,
    });
    servers.push(s);
    pages.set('/github/history.atom', { body: fixture('rss-atom/statuspage-github-history-2026-04-29.atom'), contentType: 'application/atom+xml' });
    await s.feeds.pollDue();
    // Read next only in June: the resolution of May 1 is older than 30 days, and still ends the open incident.
    clock.set('2026-06-15T00:00:00Z');
    pages.set('/github/history.atom', { body: fixture('rss-atom/statuspage-github-history-2026-05-01.atom'), contentType: 'application/atom+xml' });
    await s.feeds.pollDue();
    const row = await s.ctx.db
      .selectFrom('incidents')
      .select(['resolved', 'resolved_at'])
      .where('external_key', 'like', '%Incident/29855242')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ resolved: 1, resolved_at: Date.parse('2026-05-01T04:15:00Z') });
  });
});
