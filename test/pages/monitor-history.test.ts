import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createDomainContext } from '../../src/domain/context.js';
import type { DomainContext } from '../../src/domain/context.js';
import { DAY_MS, HISTORY_DAYS, HOUR_MS } from '../../src/domain/monitors/probe-hours.js';
import { createProbeRollup } from '../../src/domain/monitors/probe-rollup.js';
import type { ProbeOutcome } from '../../src/domain/monitors/probe-results.js';
import type { ProbeClient, ProbeTarget } from '../../src/probes/probe-client.js';
import { createMonitorProber } from '../../src/jobs/monitor-prober.js';
import { startFakeTarget } from '../fakes/fake-target.js';
import type { FakeTarget } from '../fakes/fake-target.js';
import { waitUntil } from '../helpers/wait-until.js';
import { visibleText } from '../helpers/pages.js';
import { ACME_KEY, GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { quietLogger as quiet } from '../helpers/loggers.js';

const SLOW_MS = 120;

const config = (target: string) => `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Acme API health, url: "${target}/health", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Acme login, url: "${target}/login", probe_type: keyword, keyword: "Sign in", interval_seconds: 60 }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api]
        monitors: [501]
  - name: Globex
    api_keys: ["${GLOBEX_KEY}"]
    custom_monitors:
      - { id: 601, name: Globex home, url: "${target}/", probe_type: ping }
    status_pages:
      - name: Globex status
        slug: globex
        monitors: [601]
`;

/** A probe client that answers from a script per URL and moves a monotonic clock by each probe's duration. */
function scriptedClient(script: Map<string, { ms: number; ok: boolean }[]>, clock: { ms: number }): ProbeClient {
  return {
    async probe(target: ProbeTarget): Promise<ProbeOutcome> {
      const next = script.get(target.url)?.shift() ?? { ms: 0, ok: true };
      clock.ms += next.ms;
      return next.ok ? { ok: true } : { ok: false, reason: 'HTTP 503' };
    },
    close: async () => undefined,
  };
}

/** The accessible names of the response-time charts of a page, in order (24 hours, then 90 days). */
const chartNames = (html: string): string[] => [...html.matchAll(/<svg class="chart rt"[^>]*aria-label="([^"]*)"/g)].map((m) => m[1]!);

let target: FakeTarget;
let s: TestServer;
beforeAll(async () => {
  target = await startFakeTarget({ slowMs: SLOW_MS });
});
afterAll(async () => {
  await target.close();
});
afterEach(async () => {
  target.mode = 'ok';
  await s?.stop();
});

const get = async (path: string) => {
  const res = await fetch(`${s.url}${path}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
};
const rowsOf = async (monitorId: number) => s.ctx.db.selectFrom('probe_hours').selectAll().where('monitor_id', '=', monitorId).orderBy('hour').execute();

describe('monitor history on a status page', () => {
  it('records each probe with its duration, rolls them up per hour and shows uptime, response time and failures', async () => {
    s = await startTestServer({ config: config(target.url) });
    // Three answers after SLOW_MS, then two failures (the monitor goes down), at 10:02.
    target.mode = 'slow';
    for (let i = 0; i < 3; i++) await s.prober.probeAll();
    target.mode = 'fail';
    for (let i = 0; i < 2; i++) await s.prober.probeAll();

    const rows = await rowsOf(501);
    expect(rows).toEqual([expect.objectContaining({ hour: Date.parse('2026-11-22T10:00:00Z'), probes: 5, ups: 3, max_ms: expect.any(Number) })]);
    expect(rows[0]!.total_ms).toBeGreaterThanOrEqual(3 * SLOW_MS);

    const { status, html, headers } = await get('/status/acme/monitors/501');
    expect(status).toBe(200);
    expect(headers.get('etag')).toBeTruthy();
    const text = visibleText(html);
    expect(text).toMatch(/Acme API health Down/);
    expect(text).toContain('60.00% uptime over the last 90 days');
    // Today's cell says it in words, on hover and keyboard focus.
    expect(text).toMatch(/22 Nov 2026 60\.00% up, 2 of 5 probes failed, avg \d+ ms/);
    // One Tab stop per bar, today; the other days are reached with arrow keys.
    expect(html.match(/<li class="[onjx]" tabindex="-1">/g)).toHaveLength(HISTORY_DAYS - 1);
    expect(html).toContain('<li class="j" tabindex="0"><p><b>22 Nov 2026</b>');

    const [day, days] = chartNames(html);
    const m = /^Average response time, last 24 hours: (\d+) ms, max (\d+) ms; 2 failed probes of 5$/.exec(day!);
    expect(m, day).not.toBeNull();
    const [avg, max] = [Number(m![1]), Number(m![2])];
    expect(avg).toBeGreaterThanOrEqual(SLOW_MS);
    expect(avg).toBeLessThan(5_000);
    expect(max).toBeGreaterThanOrEqual(avg);
    expect(days).toBe(`Average response time, last 90 days: ${avg} ms, max ${max} ms; 2 failed probes of 5`);
    expect(html).toContain(`<title>${day}</title>`);
    // The line, a failure mark in the hour and the day, and the axes' labels.
    expect(html.match(/<path class="line" d="M[\d.]+ [\d.]+H[\d.]+"/g)).toHaveLength(2);
    expect(html.match(/<path class="fail" d="M[^"]+Z"/g)).toHaveLength(2);
    expect(text).toContain('24 h ago');
    expect(text).toContain('90 days ago');
    expect(html).toMatch(/<text[^>]*text-anchor="end"[^>]*>\d+ ms<\/text>/);
    // The hour in the table.
    expect(text).toMatch(/22 Nov 10:00 5 60\.00% \d+ ms \d+ ms/);
    // Nothing the CSP refuses (no inline style or script: the one script is statusbot's own file); small.
    expect(html).not.toMatch(/\sstyle=|<script(?! src="\/assets\/statusbot\.js\?v=[0-9a-f]+" defer><\/script>)/);
    expect(Buffer.byteLength(html)).toBeLessThan(60 * 1024);

    // An hour later it is up again: a new hour, and the page shows both.
    s.clock.set(Date.parse(T0) + HOUR_MS);
    target.mode = 'ok';
    await s.prober.probeAll();
    expect((await rowsOf(501)).map((r) => [r.probes, r.ups])).toEqual([
      [5, 3],
      [1, 1],
    ]);
    const later = await get('/status/acme/monitors/501');
    expect(visibleText(later.html)).toMatch(/Acme API health Up/);
    expect(visibleText(later.html)).toContain('66.67% uptime over the last 90 days');
    expect(chartNames(later.html)[0]).toMatch(/^Average response time, last 24 hours: \d+ ms, max \d+ ms; 2 failed probes of 6$/);
    // Two hours in a row: one line from one to the other.
    expect(later.html).toMatch(/<path class="line" d="M[\d.]+ [\d.]+L[\d.]+ [\d.]+"/);
  });

  it('shows exact averages, maxima and uptime per hour and day, summed over probes', async () => {
    s = await startTestServer({ config: config(target.url) });
    const mono = { ms: 0 };
    const health = `${target.url}/health`;
    const script = new Map([
      [
        health,
        [
          { ms: 100, ok: true },
          { ms: 200, ok: true },
          { ms: 300, ok: true },
          { ms: 5_000, ok: false },
        ],
      ],
    ]);
    const prober = createMonitorProber({ ctx: s.ctx, client: scriptedClient(script, mono), region: 'local', logger: quiet, monotonicMs: () => mono.ms });
    for (let i = 0; i < 4; i++) await prober.probeAll();
    const { html } = await get('/status/acme/monitors/501');
    // A failure's time (a timeout) is not a response time.
    expect(chartNames(html)).toEqual([
      'Average response time, last 24 hours: 200 ms, max 300 ms; 1 failed probe of 4',
      'Average response time, last 90 days: 200 ms, max 300 ms; 1 failed probe of 4',
    ]);
    const text = visibleText(html);
    expect(text).toContain('22 Nov 2026 75.00% up, 1 of 4 probes failed, avg 200 ms');
    expect(text).toContain('22 Nov 10:00 4 75.00% 200 ms 300 ms');
    expect(text).toContain('22 Nov 09:00 0 No data – –');
    // The chart's scale: 0 to the next round value above the highest average.
    expect(html).toContain('>250 ms</text>');
  });

  it('writes probe results at most every flush interval, in one write, and not per probe', async () => {
    s = await startTestServer({ config: config(target.url) });
    const mono = { ms: 0 };
    const prober = createMonitorProber({
      ctx: s.ctx,
      client: scriptedClient(new Map(), mono),
      region: 'local',
      logger: quiet,
      monotonicMs: () => mono.ms,
      flushMs: 30_000,
    });
    // The first tick learns the schedule; a minute later every monitor is due.
    const t0 = Date.parse(T0);
    await prober.tick(new Date(t0));
    await prober.idle();
    await prober.tick(new Date(t0 + 60_000));
    await prober.idle();
    expect(prober.stats.completed).toBeGreaterThanOrEqual(3);
    const count = async () => (await s.ctx.db.selectFrom('probe_hours').select('monitor_id').execute()).length;
    expect(await count()).toBe(0);
    mono.ms += 30_000;
    await prober.tick(new Date(t0 + 60_500));
    expect(await waitUntil(async () => (await count()) === 3)).toBe(true);
    const rows = await s.ctx.db.selectFrom('probe_hours').select(['monitor_id', 'probes']).orderBy('monitor_id').execute();
    expect(rows).toEqual([
      { monitor_id: 501, probes: 1 },
      { monitor_id: 502, probes: 1 },
      { monitor_id: 601, probes: 1 },
    ]);
  });

  it('adds up the rollups of several processes (replicas) into the same hour', async () => {
    s = await startTestServer({ config: config(target.url) });
    const other = openDatabase({ path: s.dbPath });
    try {
      const replica: DomainContext = createDomainContext({ db: other, clock: s.clock, publicUrl: 'http://status.test' });
      const mine = createProbeRollup(s.ctx, 'local');
      const theirs = createProbeRollup(replica, 'local');
      const at = new Date(T0);
      mine.record(501, at, 100, true);
      mine.record(501, at, 500, true);
      theirs.record(501, at, 300, true);
      theirs.record(501, at, 900, false);
      expect(mine.pending).toBe(1);
      await Promise.all([mine.flush(), theirs.flush()]);
      mine.record(501, at, 700, true);
      await mine.flush();
      expect(await rowsOf(501)).toEqual([{ monitor_id: 501, hour: Date.parse('2026-11-22T10:00:00Z'), probes: 5, ups: 4, total_ms: 1600, max_ms: 700 }]);
      expect(chartNames((await get('/status/acme/monitors/501')).html)[0]).toBe(
        'Average response time, last 24 hours: 400 ms, max 700 ms; 1 failed probe of 5',
      );
    } finally {
      await other.destroy();
    }
  });

  it('reads at most 90 days however long the history, and the retention job removes the rest', async () => {
    s = await startTestServer({ config: config(target.url) });
    const rollup = createProbeRollup(s.ctx, 'local');
    const now = Date.parse(T0);
    const hours = 120 * 24;
    for (let h = 0; h < hours; h++) {
      const at = new Date(now - h * HOUR_MS);
      // 12 probes an hour; one failure every 7 hours (1 in 84).
      for (let p = 0; p < 12; p++) rollup.record(501, at, 100 + ((h + p) % 40), !(p === 0 && h % 7 === 0));
    }
    await rollup.flush();
    expect(await rowsOf(501)).toHaveLength(hours);

    const before = await get('/status/acme/monitors/501');
    expect(before.status).toBe(200);
    const text = visibleText(before.html);
    expect(text).toMatch(/Acme API health Up 98\.81% uptime over the last 90 days/);
    expect(before.html.match(/<li class="[onj]" tabindex="-?[0-9]">/g)).toHaveLength(HISTORY_DAYS);
    expect(chartNames(before.html)[1]).toMatch(/^Average response time, last 90 days: 1\d\d ms, max 139 ms; \d+ failed probes of 25\d\d\d$/);
    // Every day failed now and then: every day has its mark, and the page stays small.
    expect(Buffer.byteLength(before.html)).toBeLessThan(60 * 1024);

    expect(await s.scheduler.runOnce('retention')).toMatch(/^removed /);
    const left = await rowsOf(501);
    expect(left.length).toBeLessThanOrEqual(24 * HISTORY_DAYS);
    // The region's own hours go with the same retention.
    const regionHours = await s.ctx.db.selectFrom('probe_region_hours').select('hour').where('monitor_id', '=', 501).orderBy('hour').execute();
    expect(regionHours.map((r) => r.hour)).toEqual(left.map((r) => r.hour));
    expect(left[0]!.hour).toBe(Math.floor(now / DAY_MS) * DAY_MS - (HISTORY_DAYS - 1) * DAY_MS);
    // What is shown did not come from the rows removed.
    const after = await get('/status/acme/monitors/501');
    expect(after.html).toBe(before.html);
  });

  it('splits the history by region where more than one probed the monitor: each in words, each on its own page', async () => {
    s = await startTestServer({ config: config(target.url) });
    const at = new Date(T0);
    const hq = createProbeRollup(s.ctx, 'hq');
    hq.record(501, at, 100, true);
    hq.record(501, at, 300, true);
    const eu = createProbeRollup(s.ctx, 'eu');
    eu.record(501, at, 700, true);
    eu.record(501, at, 900, false);
    await Promise.all([hq.flush(), eu.flush()]);

    // All regions together, as before, and each region's last 24 hours in words, with a link to its own page.
    const all = await get('/status/acme/monitors/501');
    expect(chartNames(all.html)[0]).toBe('Average response time, last 24 hours: 367 ms, max 700 ms; 1 failed probe of 4');
    const text = visibleText(all.html);
    expect(text).toContain('By region');
    expect(text).toContain('eu Average response time, last 24 hours: 700 ms, max 700 ms; 1 failed probe of 2');
    expect(text).toContain('hq Average response time, last 24 hours: 200 ms, max 300 ms; no failed probes');
    expect(all.html).toContain('<a href="/status/acme/monitors/501" aria-current="page">All regions</a>');
    expect(all.html).toContain('<a href="/status/acme/monitors/501?region=eu">eu</a>');
    expect(all.html).toContain('<a href="/status/acme/monitors/501?region=hq">hq</a>');

    // One region: its charts, bars, uptime and hours, named as that region's; the status stays the monitor's.
    const one = await get('/status/acme/monitors/501?region=eu');
    expect(one.status).toBe(200);
    expect(one.headers.get('etag')).toBeTruthy();
    expect(chartNames(one.html)).toEqual([
      'Average response time, last 24 hours from eu: 700 ms, max 700 ms; 1 failed probe of 2',
      'Average response time, last 90 days from eu: 700 ms, max 700 ms; 1 failed probe of 2',
    ]);
    const oneText = visibleText(one.html);
    expect(oneText).toContain('Probes from eu');
    expect(oneText).toContain('50.00% uptime from eu over the last 90 days');
    expect(oneText).toContain('22 Nov 10:00 2 50.00% 700 ms 700 ms');
    expect(one.html).toContain('<a href="/status/acme/monitors/501?region=eu" aria-current="page">eu</a>');
    expect(one.html).not.toContain('aria-current="page">All regions');

    // Only regions that probed it name a page: anything else is not found, and so is never kept in the page cache.
    for (const query of ['?region=us', '?region=', '?region=eu&region=hq']) {
      expect((await get(`/status/acme/monitors/501${query}`)).status, query).toBe(404);
    }
    // A parameter the page does not read changes nothing.
    expect((await get('/status/acme/monitors/501?region=eu&utm_source=x')).html).toBe(one.html);
  });

  it('shows no split, and no region page, for a monitor probed from one region', async () => {
    s = await startTestServer({ config: config(target.url) });
    const hq = createProbeRollup(s.ctx, 'hq');
    hq.record(501, new Date(T0), 100, true);
    await hq.flush();
    const { html } = await get('/status/acme/monitors/501');
    expect(visibleText(html)).not.toContain('By region');
    expect(html).not.toContain('?region=');
    expect((await get('/status/acme/monitors/501?region=hq')).status).toBe(404);
  });

  it('is served only for a monitor the page lists', async () => {
    s = await startTestServer({ config: config(target.url) });
    expect((await get('/status/acme/monitors/501')).status).toBe(200);
    expect((await get('/status/globex/monitors/601')).status).toBe(200);
    for (const path of [
      '/status/acme/monitors/502', // Acme's, not on the page
      '/status/acme/monitors/601', // another company's
      '/status/acme/monitors/999',
      '/status/acme/monitors/abc',
      '/status/acme/monitors/0501',
      '/status/nope/monitors/501',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(visibleText(res.html)).toContain('Not found');
    }
    // Before any probe: said in words, and the charts say there is no data.
    const { html } = await get('/status/acme/monitors/501');
    expect(visibleText(html)).toMatch(/Acme API health No data yet/);
    expect(chartNames(html)).toEqual(['Response time, last 24 hours: no data', 'Response time, last 90 days: no data']);
  });
});
