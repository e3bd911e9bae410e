import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProbeClient } from '../../src/probes/probe-client.js';
import type { ProbeClient } from '../../src/probes/probe-client.js';
import { createMonitorProber } from '../../src/jobs/monitor-prober.js';
import type { Announcement } from '../../src/domain/notifications/announcement.js';
import { startFakeTarget } from '../fakes/fake-target.js';
import type { FakeTarget } from '../fakes/fake-target.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';

let target: FakeTarget;
beforeAll(async () => {
  target = await startFakeTarget({ slowMs: 2_000 });
});
afterAll(async () => {
  await target.close();
});

const client = (overrides: Partial<Parameters<typeof createProbeClient>[0]> = {}) =>
  createProbeClient({ timeoutMs: 500, blockPrivateTargets: false, userAgent: 'statusbot-test', ...overrides });

describe('HTTP probes', () => {
  let probes: ProbeClient;
  afterEach(async () => {
    target.mode = 'ok';
    await probes.close();
  });

  it("ping: 2xx is up, 503 is down naming the status, with statusbot's User-Agent", async () => {
    probes = client();
    expect(await probes.probe({ url: `${target.url}/health`, probeType: 'ping', keyword: null })).toEqual({ ok: true });
    expect(target.hits.at(-1)?.userAgent).toBe('statusbot-test');
    target.mode = 'fail';
    expect(await probes.probe({ url: `${target.url}/health`, probeType: 'ping', keyword: null })).toEqual({ ok: false, reason: 'HTTP 503' });
  });

  it('keyword: the body must contain it within the first MiB', async () => {
    probes = client();
    const login = { url: `${target.url}/login`, probeType: 'keyword' as const, keyword: 'Sign in' };
    expect(await probes.probe(login)).toEqual({ ok: true });
    target.mode = 'wrong-body';
    expect(await probes.probe(login)).toEqual({ ok: false, reason: 'keyword "Sign in" not found (HTTP 200)' });
    target.mode = 'ok';
    expect(await probes.probe({ ...login, url: `${target.url}/big` })).toEqual({
      ok: false,
      reason: 'keyword "Sign in" not found (HTTP 200)',
    });
  });

  it('follows up to 5 redirects; more, a loop or a redirect to nowhere is down with the reason', async () => {
    probes = client();
    const ping = (path: string) => probes.probe({ url: `${target.url}${path}`, probeType: 'ping', keyword: null });
    expect(await ping('/redirect/5')).toEqual({ ok: true });
    expect(await probes.probe({ url: `${target.url}/redirect/5`, probeType: 'keyword', keyword: 'Sign in' })).toEqual({ ok: true });
    expect(await ping('/redirect/6')).toEqual({ ok: false, reason: 'too many redirects (more than 5)' });
    expect(await ping('/loop')).toEqual({ ok: false, reason: 'redirect loop' });
    expect(await ping('/moved-nowhere')).toEqual({ ok: false, reason: 'HTTP 302 without Location' });
  });

  it('times out', async () => {
    probes = client({ timeoutMs: 300 });
    target.mode = 'slow';
    const started = Date.now();
    expect(await probes.probe({ url: `${target.url}/health`, probeType: 'ping', keyword: null })).toEqual({
      ok: false,
      reason: 'timeout after 0.3 s',
    });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('names a network error', async () => {
    probes = client();
    const outcome = await probes.probe({ url: 'http://127.0.0.1:9/health', probeType: 'ping', keyword: null });
    expect(outcome).toEqual({ ok: false, reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('refuses private targets when told to, by resolved address, redirects included', async () => {
    probes = client({ blockPrivateTargets: true });
    const hits = target.hits.length;
    const literal = await probes.probe({ url: `${target.url}/health`, probeType: 'ping', keyword: null });
    expect(literal).toEqual({ ok: false, reason: 'blocked private target 127.0.0.1' });
    const byName = await probes.probe({ url: `${target.url.replace('127.0.0.1', 'localhost')}/health`, probeType: 'ping', keyword: null });
    expect(byName).toEqual({ ok: false, reason: expect.stringMatching(/^blocked private target localhost \((127\.0\.0\.1|::1)\)$/) });
    const metadata = await probes.probe({ url: 'http://169.254.169.254/latest/meta-data', probeType: 'ping', keyword: null });
    expect(metadata).toEqual({ ok: false, reason: 'blocked private target 169.254.169.254' });
    expect(target.hits.length).toBe(hits);
  });
});

describe('monitors going down and up', () => {
  let s: TestServer;
  afterEach(async () => {
    target.mode = 'ok';
    await s.stop();
  });

  it('go down after 2 failures with the region and status, recover on the first success, and notify once each way', async () => {
    s = await startTestServer({
      config: `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 501, name: Homepage, url: "${target.url}/health", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Login, url: "${target.url}/login", probe_type: keyword, keyword: "Sign in", interval_seconds: 60 }
    slack: { team_id: T1 }
    channels:
      - { slack: C-OPS, monitors: [501] }
`,
    });
    const probes = client();
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'eu-west', logger: silentLogger });
    const monitor = async () => (await s.api('GET', '/api/v2/custom_monitors')).body.data[0].attributes;
    const rows = () => s.ctx.db.selectFrom('outbox').select(['event', 'payload']).where('stream', '=', 'slack:T1:C-OPS').orderBy('id').execute();

    try {
      await prober.probeAll();
      expect((await monitor()).status).toBe('ok');
      target.mode = 'fail';
      await prober.probeAll();
      expect((await monitor()).status).toBe('ok');
      await prober.probeAll();
      const down = await monitor();
      expect(down.status).toBe('down');
      expect(down.ongoing_incidents.data).toHaveLength(1);
      expect(down.ongoing_incidents.data[0].attributes.description).toBe('Down in eu-west: HTTP 503');
      await prober.probeAll();
      expect((await monitor()).ongoing_incidents.data).toHaveLength(1);

      target.mode = 'ok';
      await prober.probeAll();
      const up = await monitor();
      expect(up.status).toBe('ok');
      expect(up.ongoing_incidents.data).toEqual([]);
      const history = await s.api('GET', '/api/v2/custom_monitors/501/incidents');
      expect(history.body.data).toHaveLength(1);
      expect(history.body.data[0].attributes).toMatchObject({ resolved: true, description: 'Down in eu-west: HTTP 503' });

      const sent = await rows();
      expect(sent.map((r) => r.event)).toEqual(['monitor.down', 'monitor.recovered']);
      expect(JSON.parse(sent[0]!.payload) as Announcement).toMatchObject({
        kind: 'monitor',
        monitor: { id: 501, name: 'Homepage' },
        change: 'down',
        description: 'Down in eu-west: HTTP 503',
        region: 'eu-west',
      });
      // The keyword monitor went down too (503), but nobody follows it.
      expect((await s.api('GET', '/api/v2/custom_monitors/502/incidents')).body.data[0].attributes.description).toBe('Down in eu-west: HTTP 503');
    } finally {
      await probes.close();
    }
  });

  it('go down on more than 5 redirects, saying so', async () => {
    s = await startTestServer({
      config: `
companies:
  - name: Acme
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 1, name: Far, url: "${target.url}/redirect/9", probe_type: ping, interval_seconds: 60 }
`,
    });
    const probes = client();
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'eu-west', logger: silentLogger });
    try {
      await prober.probeAll();
      await prober.probeAll();
      const monitor = (await s.api('GET', '/api/v2/custom_monitors')).body.data[0].attributes;
      expect(monitor.status).toBe('down');
      expect(monitor.ongoing_incidents.data[0].attributes.description).toBe('Down in eu-west: too many redirects (more than 5)');
    } finally {
      await probes.close();
    }
  });

  it('keep probing other monitors on time while one target is slow', async () => {
    const slow = await startFakeTarget({ slowMs: 5_000 });
    slow.mode = 'slow';
    s = await startTestServer({
      config: `
companies:
  - name: Acme
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 1, name: Slow, url: "${slow.url}/slow", probe_type: ping, interval_seconds: 1 }
      - { id: 2, name: Fast, url: "${target.url}/fast", probe_type: ping, interval_seconds: 1 }
`,
    });
    const probes = client({ timeoutMs: 4_000 });
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'local', logger: silentLogger });
    try {
      const before = target.hits.filter((h) => h.path === '/fast').length;
      const start = Date.now();
      for (let i = 0; i < 4; i++) {
        // A tick a second; the next once every probe started has ended but the slow one, which holds its own slot.
        await prober.tick(new Date(start + i * 1_000));
        await waitUntil(() => prober.stats.started - prober.stats.completed === slow.hits.length, { what: `the probes of tick ${i}` });
      }
      // The slow probe is still under way; the fast monitor was probed at every tick.
      expect(target.hits.filter((h) => h.path === '/fast').length - before).toBeGreaterThanOrEqual(3);
      expect(slow.hits.length).toBe(1);
      expect(prober.stats.late).toBe(0);
    } finally {
      // The slow target first: its connection cut, the probe under way ends now rather than at its timeout.
      await slow.close();
      await probes.close();
    }
  });

  it('probe each monitor every interval_seconds, spread over the interval', async () => {
    s = await startTestServer({
      config: `
companies:
  - name: Acme
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 1, name: A, url: "${target.url}/a", probe_type: ping, interval_seconds: 10 }
      - { id: 2, name: B, url: "${target.url}/b", probe_type: ping, interval_seconds: 10 }
      - { id: 3, name: C, url: "${target.url}/c", probe_type: ping, interval_seconds: 30 }
`,
    });
    const probes = client();
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'local', logger: silentLogger });
    try {
      const start = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
      const seen = new Map<string, number[]>();
      const before = target.hits.length;
      for (let t = start; t < start + 60_000; t += 1000) {
        const hitsBefore = target.hits.length;
        await prober.tick(new Date(t));
        await prober.idle();
        for (const hit of target.hits.slice(hitsBefore)) seen.set(hit.path, [...(seen.get(hit.path) ?? []), (t - start) / 1000]);
      }
      expect(target.hits.length - before).toBe(6 + 6 + 2);
      const a = seen.get('/a')!;
      expect(a.slice(1).map((x, i) => x - a[i]!)).toEqual([10, 10, 10, 10, 10]);
      expect(seen.get('/c')!.map((x, i, all) => (i ? x - all[i - 1]! : 0))).toEqual([0, 30]);
      expect(new Set([seen.get('/a')![0], seen.get('/b')![0]]).size).toBe(2);
    } finally {
      await probes.close();
    }
  });
});
