import { afterEach, describe, expect, it } from 'vitest';
import { createDomainContext } from '../../src/domain/context.js';
import { openDatabase } from '../../src/db/database.js';
import { listFeeds } from '../../src/domain/vendors/vendor-feeds.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createJobDeps } from '../../src/main.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { fixture, movedTo, startFakeStatusPages } from '../fakes/fake-status-pages.js';
import type { FakeStatusPages } from '../fakes/fake-status-pages.js';
import { ACME_TEAM, slackEnv } from '../helpers/slack.js';
import { ACME_KEY, FAST_DELIVERY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { startEncodedStall } from '../fakes/fake-stalling-server.js';
import type { FakeStallingServer } from '../fakes/fake-stalling-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const CHANNEL = 'CVENDORS';
/** The title of the captured critical incident, which the tests open again as a current one. */
const CRITICAL = JSON.parse(fixture('statuspage-github-incident-critical.json')).name as string;
const INTERVAL_MS = 60_000;
const PAST = new Date(Date.parse(T0) - 86_400_000);

/** GitHub's captured Statuspage documents, dated now, optionally with one open incident and a maintenance under way. */
function github(now: Date, options: { open?: 'investigating' | 'identified' | 'resolved'; updates?: number; maintenance?: boolean; indicator?: string } = {}) {
  const summary = JSON.parse(movedTo(fixture('statuspage-github-summary.json'), now));
  // The past incidents keep their dates from read to read, as at a real provider.
  const incidents = JSON.parse(movedTo(fixture('statuspage-github-incidents.json'), PAST));
  if (options.open) {
    const critical = JSON.parse(movedTo(fixture('statuspage-github-incident-critical.json'), now));
    critical.id = 'openincident1';
    const updates = critical.incident_updates.slice(-(options.updates ?? 1));
    critical.incident_updates = updates;
    critical.status = options.open;
    if (options.open !== 'resolved') critical.resolved_at = null;
    updates[0].status = options.open;
    critical.updated_at = updates[0].updated_at ?? updates[0].created_at;
    incidents.incidents.unshift(critical);
    if (options.open !== 'resolved') {
      summary.incidents = [critical];
      summary.status = { indicator: options.indicator ?? 'critical', description: 'Major System Outage' };
    }
  }
  if (options.maintenance) {
    summary.scheduled_maintenances = [
      {
        id: 'maint1',
        name: 'Database upgrade',
        status: 'in_progress',
        scheduled_for: new Date(now.getTime() - 600_000).toISOString(),
        scheduled_until: new Date(now.getTime() + 3_600_000).toISOString(),
        incident_updates: [],
        components: [],
        impact: 'maintenance',
        created_at: new Date(now.getTime() - 86_400_000).toISOString(),
        updated_at: now.toISOString(),
      },
    ];
    summary.status = { indicator: 'maintenance', description: 'Service Under Maintenance' };
  }
  return { summary: JSON.stringify(summary), incidents: JSON.stringify(incidents) };
}

function config(pages: FakeStatusPages, extra = '') {
  return `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
ingestion: { interval_seconds: 60, timeout_seconds: 2, concurrency: 10 }
services:
  - urlname: github
    name: GitHub
    status_page_url: https://www.githubstatus.com
    feed: { kind: statuspage, url: ${pages.url}/github }
  - urlname: aws
    name: Amazon Web Services
    feed: { kind: rss, url: ${pages.url}/aws/all.rss }
  - urlname: google-cloud
    name: Google Cloud
    feed: { kind: gcp, url: ${pages.url}/gcp/incidents.json }
    poll: always
  - urlname: quiet-vendor
    name: Quiet Vendor
    feed: { kind: statuspage, url: ${pages.url}/quiet }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    monitored_services: [github, aws]
    slack: { team_id: ${ACME_TEAM} }
    channels:
      - { slack: ${CHANNEL}, services: [github] }
${extra}`;
}

let pages: FakeStatusPages;
let slack: FakeSlack;
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await slack?.close();
  await pages?.close();
});

async function start(extra = '', options: { blockPrivate?: boolean } = {}) {
  pages = await startFakeStatusPages();
  slack = await startFakeSlack();
  const now = new Date();
  const docs = github(now);
  pages.set('/github/api/v2/summary.json', { body: docs.summary });
  pages.set('/github/api/v2/incidents.json', { body: docs.incidents });
  pages.set('/aws/all.rss', { body: movedTo(fixture('aws-status.rss'), now), contentType: 'application/rss+xml' });
  pages.set('/gcp/incidents.json', { body: movedTo(fixture('gcp-incidents.json'), now) });
  let text = config(pages, extra);
  if (options.blockPrivate) text = text.replace('rate_limit:', 'probes: { block_private_targets: true }\nrate_limit:');
  const s = await startTestServer({ config: text, env: slackEnv(slack), delivery: FAST_DELIVERY, clock: undefined });
  servers.push(s);
  return s;
}

/** Reads every due feed, after moving the clock on by one interval (plus the jitter). */
async function pollAfterInterval(s: TestServer) {
  s.clock.advance(INTERVAL_MS * 1.2);
  await s.feeds.pollDue();
}

const service = async (s: TestServer, urlname = 'github') => (await s.api('GET', `/api/v2/services/${urlname}`)).body.data.attributes;
const incidentsOf = async (s: TestServer, urlname = 'github') =>
  (await s.api('GET', `/api/v2/services/${urlname}/incidents`)).body.data as { id: string; attributes: Record<string, any> }[];
const messages = () => slack.messages.get(CHANNEL) ?? [];
const settled = (s: TestServer) =>
  slack.waitFor(async () => (await s.ctx.db.selectFrom('outbox').select('id').where('state', '=', 'pending').execute()).length === 0);

describe('a Statuspage feed', () => {
  it('is read silently the first time: status, incidents and their fields, and no message', async () => {
    const s = await start();
    const before = s.clock.now().getTime();
    expect(await s.feeds.pollDue()).toBe(3);
    const attrs = await service(s);
    expect(attrs).toMatchObject({ status: 'ok', feed_error: null });
    expect(Date.parse(attrs.last_checked_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(attrs.last_checked_at)).toBeLessThanOrEqual(s.clock.now().getTime());
    const list = await incidentsOf(s);
    expect(list).toHaveLength(5);
    const critical = list.find((i) => i.attributes.title === 'Incident with GitHub.com')!;
    expect(critical.attributes).toMatchObject({
      status: 'major',
      resolved: true,
      service: 'GitHub',
      user_generated: false,
      components: ['Git Operations', 'Webhooks', 'API Requests', 'Issues', 'Pull Requests', 'Actions', 'Pages', 'Copilot'],
    });
    expect(critical.attributes.url).toMatch(/^https:\/\/stspg\.io\//);
    const full = (await s.api('GET', `/api/v2/incidents/${critical.id}`)).body.data.attributes;
    expect(full.severity_from_provider).toBe('critical');
    expect(full.updates).toHaveLength(36);
    expect(full.updates.at(-1).status).toBe('resolved');
    expect(full.updates.map((u: any) => u.created_at)).toEqual([...full.updates.map((u: any) => u.created_at)].sort());
    await settled(s);
    expect(messages()).toEqual([]);
    // Nobody watches quiet-vendor: it is not read.
    expect(pages.hits('/quiet/api/v2/summary.json')).toEqual([]);
  });

  it('after that, a new incident, its update and its resolution are each told once; the status follows the indicator', async () => {
    const s = await start();
    await s.feeds.pollDue();
    const set = (docs: { summary: string; incidents: string }) => {
      pages.set('/github/api/v2/summary.json', { body: docs.summary });
      pages.set('/github/api/v2/incidents.json', { body: docs.incidents });
    };

    set(github(s.clock.now(), { open: 'investigating' }));
    await pollAfterInterval(s);
    expect((await service(s)).status).toBe('major');
    const opened = (await incidentsOf(s)).find((i) => !i.attributes.resolved)!;
    expect(opened.attributes).toMatchObject({ title: CRITICAL, status: 'major', resolved: false });
    await settled(s);
    expect(messages().map((m) => [m.threadTs === null, m.text])).toEqual([
      [true, `Major incident #${opened.id}: ${CRITICAL} (GitHub)`],
      [false, expect.stringContaining('*Investigating*')],
      [true, 'GitHub is now Major outage'],
    ]);
    // A vendor's incident offers no Post update or Resolve: the company cannot change it.
    expect(JSON.stringify(messages()[0]!.blocks)).not.toContain('incident_resolve');

    set(github(s.clock.now(), { open: 'identified', updates: 2 }));
    await pollAfterInterval(s);
    await settled(s);
    expect((await incidentsOf(s)).find((i) => !i.attributes.resolved)!.id).toBe(opened.id);
    expect(messages().filter((m) => m.threadTs !== null)).toHaveLength(2);
    expect(messages()[0]!.edits).toBe(1);

    set(github(s.clock.now(), { open: 'resolved', updates: 3 }));
    await pollAfterInterval(s);
    await settled(s);
    expect((await service(s)).status).toBe('ok');
    const closed = (await s.api('GET', `/api/v2/incidents/${opened.id}`)).body.data.attributes;
    expect(closed).toMatchObject({ resolved: true });
    expect(closed.updates.at(-1).status).toBe('resolved');
    expect(
      messages()
        .filter((m) => m.threadTs === null)
        .map((m) => m.text),
    ).toEqual([`Resolved incident #${opened.id}: ${CRITICAL} (GitHub)`, 'GitHub is now Major outage', 'GitHub is now Operational']);

    // Nothing changed: each document answers 304, and nothing is written or said.
    const before = messages().length;
    await pollAfterInterval(s);
    expect(pages.hits('/github/api/v2/summary.json', 304).length).toBeGreaterThan(0);
    await settled(s);
    expect(messages()).toHaveLength(before);
  });

  it('shows a maintenance under way, and an incident outranks it', async () => {
    const s = await start();
    const set = (docs: { summary: string; incidents: string }) => {
      pages.set('/github/api/v2/summary.json', { body: docs.summary });
      pages.set('/github/api/v2/incidents.json', { body: docs.incidents });
    };
    set(github(s.clock.now(), { maintenance: true }));
    await s.feeds.pollDue();
    expect((await service(s)).status).toBe('maintenance');
    // The page says maintenance, but a critical incident is open: it outranks the maintenance.
    set(github(s.clock.now(), { maintenance: true, open: 'investigating' }));
    await pollAfterInterval(s);
    expect((await service(s)).status).toBe('major');
  });

  it('a failing feed keeps the last known status, says why, and backs off; the API never fails', async () => {
    const s = await start();
    pages.set('/github/api/v2/summary.json', { body: github(s.clock.now(), { open: 'investigating' }).summary });
    pages.set('/github/api/v2/incidents.json', { body: github(s.clock.now(), { open: 'investigating' }).incidents });
    await s.feeds.pollDue();
    expect((await service(s)).status).toBe('major');

    const failures: [string, Parameters<FakeStatusPages['set']>[1], RegExp][] = [
      ['a 500', { status: 500, body: 'oops' }, /HTTP 500/],
      ['an HTML page', { body: '<html><body>Service Unavailable</body></html>', contentType: 'text/html', etag: false }, /HTML/],
      ['malformed JSON', { body: '{"status": {"indicator": "none"', etag: false }, /JSON/],
      ['JSON of another shape', { body: '{"hello": "world"}', etag: false }, /./],
      ['a slow answer', { body: '{}', delayMs: 4_000, etag: false }, /timeout/],
      ['a huge body', { body: `{"x":"${'a'.repeat(6 * 1024 * 1024)}"}`, etag: false }, /over 5120 KiB/],
    ];
    let lastNext = 0;
    for (const [what, answer, reason] of failures) {
      pages.set('/github/api/v2/summary.json', answer);
      await pollAfterInterval(s);
      const [feed] = (await listFeeds(s.ctx)).filter((f) => f.urlname === 'github');
      expect(feed!.lastError, what).toMatch(reason);
      const attrs = await service(s);
      expect(attrs.status, what).toBe('major');
      expect(attrs.feed_error, what).toMatch(reason);
      // Backing off: each failed read waits longer before the next, up to 30 minutes.
      const wait = feed!.nextPollAt.getTime() - s.clock.now().getTime();
      expect(wait, what).toBeGreaterThanOrEqual(Math.min(lastNext, 30 * 60_000));
      lastNext = wait;
      s.clock.advance(wait);
    }
    // The clock runs while the test does: the wait was measured a moment after it was set.
    expect(lastNext).toBeGreaterThan(30 * 60_000 - 5_000);
    expect(lastNext).toBeLessThanOrEqual(30 * 60_000);
    expect((await s.api('GET', '/api/v2/services/github/incidents')).status).toBe(200);

    // Healthy again: the error clears.
    pages.set('/github/api/v2/summary.json', { body: github(s.clock.now()).summary });
    pages.set('/github/api/v2/incidents.json', { body: github(s.clock.now()).incidents });
    await pollAfterInterval(s);
    expect(await service(s)).toMatchObject({ status: 'ok', feed_error: null });
  });

  it('is read once per interval by two processes on one database', async () => {
    const s = await start();
    const other = openDatabase({ path: s.dbPath });
    try {
      const ctx = createDomainContext({ db: other, clock: s.clock, publicUrl: 'http://status.test' });
      const loaded = parseConfig('test.yml', config(pages)).config;
      const second = createJobDeps(ctx, loaded, silentLogger);
      await Promise.all([s.feeds.pollDue(), second.feeds.pollDue()]);
      await pollAfterInterval(s);
      await second.feeds.pollDue();
      await second.close();
      // Two intervals: each document read twice in all, never twice in one.
      expect(pages.hits('/github/api/v2/summary.json')).toHaveLength(2);
      expect(pages.hits('/aws/all.rss')).toHaveLength(2);
    } finally {
      await other.destroy();
    }
  });

  it('refuses a feed on a private address when probes.block_private_targets is on', async () => {
    const s = await start('', { blockPrivate: true });
    await s.feeds.pollDue();
    expect(pages.requests).toEqual([]);
    expect((await service(s)).feed_error).toMatch(/blocked private target/);
  });
});

describe('RSS and Google Cloud feeds', () => {
  it('read the captured AWS and Google Cloud payloads into incidents', async () => {
    const s = await start();
    await s.feeds.pollDue();
    const aws = await incidentsOf(s, 'aws');
    expect(aws.length).toBeGreaterThan(0);
    for (const i of aws) {
      expect(i.attributes.title).not.toMatch(/^\[?RESOLVED\]?|^Service is operating normally/i);
      expect(i.attributes.service).toBe('Amazon Web Services');
    }
    const gcp = await incidentsOf(s, 'google-cloud');
    expect(gcp.length).toBeGreaterThan(0);
    const first = (await s.api('GET', `/api/v2/incidents/${gcp[0]!.id}`)).body.data.attributes;
    expect(['high', 'medium', 'low']).toContain(first.severity_from_provider);
    expect(first.components.length).toBeGreaterThan(0);
    const feeds = await listFeeds(s.ctx);
    expect(
      feeds
        .filter((f) => f.watched)
        .map((f) => f.urlname)
        .sort(),
    ).toEqual(['aws', 'github', 'google-cloud']);
    expect(feeds.find((f) => f.urlname === 'quiet-vendor')).toMatchObject({ watched: false, lastCheckedAt: null });
  });
});

describe('feeds that stall or redirect', () => {
  const stalls: FakeStallingServer[] = [];
  afterEach(async () => {
    for (const stall of stalls.splice(0)) await stall.close();
  });

  async function startWith(servicesAt: (pagesUrl: string) => string, ingestion: string) {
    pages = await startFakeStatusPages();
    slack = await startFakeSlack();
    const docs = github(new Date());
    pages.set('/github/api/v2/summary.json', { body: docs.summary });
    pages.set('/github/api/v2/incidents.json', { body: docs.incidents });
    const services = servicesAt(pages.url);
    const s = await startTestServer({
      config: `
public_url: http://status.test
ingestion: ${ingestion}
services:
  - urlname: github
    name: GitHub
    feed: { kind: statuspage, url: ${pages.url}/github }
${services}
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    monitored_services: [github, ${[...services.matchAll(/urlname: ([\w-]+)/g)].map((m) => m[1]).join(', ')}]
`,
      env: slackEnv(slack),
    });
    servers.push(s);
    return s;
  }

  it('three gzip feeds that stall hold no reading slot past their timeout: a healthy feed is read', async () => {
    // Three vendors, three hosts.
    for (let i = 0; i < 3; i++) stalls.push(await startEncodedStall('gzip'));
    const stalled = ['stall-1', 'stall-2', 'stall-3'];
    const s = await startWith(
      () => stalled.map((u, i) => `  - { urlname: ${u}, name: ${u}, feed: { kind: rss, url: "${stalls[i]!.url}/${u}.rss" } }`).join('\n'),
      '{ interval_seconds: 60, timeout_seconds: 0.5, concurrency: 3 }',
    );
    // GitHub is due a moment after the three stalled feeds, which take every slot first.
    const github = await s.ctx.db.selectFrom('services').select('id').where('urlname', '=', 'github').executeTakeFirstOrThrow();
    await s.ctx.db
      .updateTable('vendor_feeds')
      .set({ next_poll_at: s.clock.now().getTime() + 1_000 })
      .where('service_id', '=', github.id)
      .execute();
    await s.feeds.tick();
    await waitUntil(() => stalls.every((stall) => stall.received === 1), { what: 'the three stalled feeds to be asked' });
    s.clock.advance(1_000);
    await waitUntil(
      async () => {
        await s.feeds.tick();
        return (await service(s)).last_checked_at !== null;
      },
      { what: 'the healthy feed to be read' },
    );
    expect(await service(s)).toMatchObject({ status: 'ok', feed_error: null });
    await s.feeds.idle();
    for (const urlname of stalled) expect((await service(s, urlname)).feed_error, urlname).toMatch(/timeout after 0\.5 s$/);
  });

  it('a redirect loop or more than 5 redirects is a failure of the feed, named in feed_error; 5 are followed', async () => {
    const s = await startWith(
      (url) => `  - { urlname: looping, name: Looping, feed: { kind: rss, url: "${url}/loop.rss" } }
  - { urlname: far, name: Far, feed: { kind: rss, url: "${url}/far/0.rss" } }
  - { urlname: too-far, name: Too Far, feed: { kind: rss, url: "${url}/too-far/0.rss" } }`,
      // Time enough for seven requests on a busy machine: the failure must be the redirects', not the clock's.
      '{ interval_seconds: 60, timeout_seconds: 10, concurrency: 10 }',
    );
    const rss = { body: movedTo(fixture('aws-status.rss'), s.clock.now()), contentType: 'application/rss+xml' };
    pages.set('/loop.rss', { status: 302, location: '/loop.rss' });
    for (let i = 0; i < 5; i++) pages.set(`/far/${i}.rss`, { status: 302, location: `/far/${i + 1}.rss` });
    pages.set('/far/5.rss', rss);
    for (let i = 0; i < 6; i++) pages.set(`/too-far/${i}.rss`, { status: 301, location: `/too-far/${i + 1}.rss` });
    pages.set('/too-far/6.rss', rss);
    await s.feeds.pollDue();
    expect(await service(s, 'looping')).toMatchObject({ feed_error: `${pages.url}/loop.rss: redirect loop` });
    expect(await service(s, 'too-far')).toMatchObject({ feed_error: `${pages.url}/too-far/0.rss: too many redirects (more than 5)` });
    expect((await service(s, 'far')).feed_error).toBeNull();
    expect((await incidentsOf(s, 'far')).length).toBeGreaterThan(0);
    expect(pages.hits('/too-far/6.rss')).toEqual([]);
  });
});
