import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';
import { FAILURES_TO_DOWN } from '../../src/domain/monitors/probe-results.js';
import { fixture, movedTo, startFakeStatusPages } from '../fakes/fake-status-pages.js';
import type { FakeStatusPages } from '../fakes/fake-status-pages.js';
import { startFakeTarget } from '../fakes/fake-target.js';
import type { FakeTarget } from '../fakes/fake-target.js';
import { startFakeWebhook } from '../fakes/fake-webhook.js';
import type { FakeWebhook } from '../fakes/fake-webhook.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const TOKEN = 'scrape-token-0123456789';
const FAST = { enabled: true, baseDelayMs: 10, maxDelayMs: 40, pollMs: 10 } as const;

let hook: FakeWebhook;
let pages: FakeStatusPages;
let target: FakeTarget;
beforeAll(async () => {
  [hook, pages, target] = await Promise.all([startFakeWebhook(), startFakeStatusPages(), startFakeTarget()]);
});
afterAll(async () => {
  await Promise.all([hook.close(), pages.close(), target.close()]);
});

const config = (extra = '') => `
public_url: http://status.test
ingestion: { interval_seconds: 60, timeout_seconds: 1, concurrency: 10 }
services:
  - urlname: vendor
    name: Vendor
    feed: { kind: rss, url: "${pages.url}/vendor.rss" }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    monitored_services: [vendor]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Homepage, url: "${target.url}/health", probe_type: ping, interval_seconds: 60 }
    status_pages:
      - name: Acme status
        services: [acme-api]
        subscribers:
          - { webhook: "${hook.url}/a", secret: "0123456789abcdef0123" }
          - { webhook: "${hook.url}/b", secret: "0123456789abcdef0123" }
${extra}`;

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  hook.received.splice(0);
  target.mode = 'ok';
});

async function start(options: { extra?: string; delivery?: TestServerOptions['delivery'] } = {}): Promise<TestServer> {
  const s = await startTestServer({ config: config(options.extra), delivery: options.delivery });
  servers.push(s);
  return s;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape in the Prometheus text format; `value` finds one by its name and exact labels. */
async function scrape(s: TestServer, token?: string) {
  const res = await fetch(`${s.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k!, v!]));
    samples.push({ name: m[1]!, labels, value: m[3] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[3]) });
  }
  const same = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);
  return {
    samples,
    value: (name: string, labels: Record<string, string> = {}) => samples.find((x) => x.name === name && same(x.labels, labels))?.value,
  };
}

const createIncident = async (s: TestServer): Promise<string> => {
  const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API errors' } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};

describe('GET /metrics', () => {
  it('counts each request under its route pattern, method and status, in this server only', async () => {
    const s = await start();
    const other = await start();
    const id = await createIncident(s);
    expect((await s.api('GET', `/api/v2/incidents/${id}`)).status).toBe(200);
    await fetch(`${s.url}/no/such/path`);
    const m = await scrape(s);
    const route = { route: '/api/v2/incidents/:id', method: 'GET', status: '200' };
    expect(m.value('statusbot_http_request_duration_seconds_count', route)).toBe(1);
    expect(m.value('statusbot_http_request_duration_seconds_sum', route)).toBeGreaterThan(0);
    expect(m.value('statusbot_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(1);
    expect(m.value('statusbot_http_request_duration_seconds_count', { route: '/api/v2/incidents', method: 'POST', status: '201' })).toBe(1);
    expect(m.value('statusbot_http_request_duration_seconds_count', { route: '(unmatched)', method: 'GET', status: '404' })).toBe(1);
    expect((await scrape(other)).value('statusbot_http_request_duration_seconds_count', route)).toBeUndefined();
  });

  it('reports the outbox rows waiting and the age of the oldest, by destination kind', async () => {
    const s = await start();
    const company = await s.ctx.db.selectFrom('companies').select('id').executeTakeFirstOrThrow();
    const now = s.clock.now().getTime();
    const row = (stream: string, createdAt: number) => ({
      company_id: company.id,
      subscriber_id: null,
      stream,
      event: 'incident.created',
      payload: '{}',
      state: 'pending' as const,
      next_attempt_at: now,
      created_at: createdAt,
    });
    await s.ctx.db
      .insertInto('outbox')
      .values([row('email:7', now - 30_000), row('discord:G1:C1', now)])
      .execute();
    await createIncident(s);
    s.clock.advance(90_000);
    const m = await scrape(s);
    expect(m.value('statusbot_outbox_pending', { kind: 'webhook' })).toBe(2);
    expect(m.value('statusbot_outbox_pending', { kind: 'email' })).toBe(1);
    expect(m.value('statusbot_outbox_pending', { kind: 'discord' })).toBe(1);
    expect(m.value('statusbot_outbox_pending', { kind: 'slack' })).toBe(0);
    expect(m.value('statusbot_outbox_oldest_pending_age_seconds', { kind: 'webhook' })).toBe(90);
    expect(m.value('statusbot_outbox_oldest_pending_age_seconds', { kind: 'email' })).toBe(120);
    expect(m.value('statusbot_outbox_oldest_pending_age_seconds', { kind: 'slack' })).toBe(0);
    expect(m.value('statusbot_writer_batch_size_count')).toBeGreaterThanOrEqual(1);
  });

  it('counts deliveries by platform and result', async () => {
    const s = await start({ delivery: FAST });
    hook.failNext(1, 503);
    await createIncident(s);
    await waitUntil(async () => (await s.ctx.db.selectFrom('outbox').select('state').where('state', '!=', 'sent').execute()).length === 0);
    const m = await scrape(s);
    expect(m.value('statusbot_deliveries_total', { platform: 'webhook', result: 'failed' })).toBe(1);
    expect(m.value('statusbot_deliveries_total', { platform: 'webhook', result: 'sent' })).toBe(2);
    expect(m.value('statusbot_outbox_pending', { kind: 'webhook' })).toBe(0);
  });

  it('times probes, counts them by result, and reports the monitors down', async () => {
    const s = await start();
    target.mode = 'fail';
    for (let i = 0; i < FAILURES_TO_DOWN; i++) await s.prober.probeAll();
    let m = await scrape(s);
    expect(m.value('statusbot_probes_total', { result: 'down' })).toBe(FAILURES_TO_DOWN);
    expect(m.value('statusbot_probes_total', { result: 'up' })).toBe(0);
    expect(m.value('statusbot_probe_duration_seconds_count')).toBe(FAILURES_TO_DOWN);
    expect(m.value('statusbot_monitors_down')).toBe(1);
    target.mode = 'ok';
    await s.prober.probeAll();
    m = await scrape(s);
    expect(m.value('statusbot_probes_total', { result: 'up' })).toBe(1);
    expect(m.value('statusbot_monitors_down')).toBe(0);
  });

  it("counts feed reads by result and reports each watched feed's staleness", async () => {
    const s = await start();
    pages.set('/vendor.rss', { body: movedTo(fixture('aws-status.rss'), new Date(T0)), contentType: 'application/rss+xml' });
    const staleness = async () => {
      const m = await scrape(s);
      expect(m.samples.filter((x) => x.name === 'statusbot_feed_staleness_seconds').map((x) => x.labels)).toEqual([{ feed: 'vendor' }]);
      return m.value('statusbot_feed_staleness_seconds', { feed: 'vendor' });
    };
    expect(await staleness()).toBe(Number.POSITIVE_INFINITY);
    await s.feeds.pollDue();
    s.clock.advance(30_000);
    expect(await staleness()).toBe(30);
    s.clock.advance(60_000);
    await s.feeds.pollDue();
    expect(await staleness()).toBe(0);
    pages.set('/vendor.rss', { status: 500 });
    s.clock.advance(72_000);
    await s.feeds.pollDue();
    expect(await staleness()).toBe(72);
    const m = await scrape(s);
    expect(m.value('statusbot_feed_fetches_total', { result: 'ok' })).toBe(1);
    expect(m.value('statusbot_feed_fetches_total', { result: 'not_modified' })).toBe(1);
    expect(m.value('statusbot_feed_fetches_total', { result: 'failed' })).toBe(1);
  });

  it('counts job runs by job and result, with their duration', async () => {
    const s = await start();
    expect(await s.scheduler.runSlot('digests', new Date(T0))).toBe(true);
    const m = await scrape(s);
    expect(m.value('statusbot_job_runs_total', { job: 'digests', result: 'ok' })).toBe(1);
    expect(m.value('statusbot_job_duration_seconds_count', { job: 'digests' })).toBe(1);
  });

  it("includes the process's default metrics", async () => {
    const m = await scrape(await start());
    expect(m.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(m.value('process_start_time_seconds')).toBeGreaterThan(0);
    expect(m.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});

describe('metrics.token', () => {
  it('leaves /metrics open when not configured', async () => {
    const s = await start();
    expect((await fetch(`${s.url}/metrics`)).status).toBe(200);
  });

  it('answers 401 in the error shape without the token or with a wrong one, and 200 with it', async () => {
    const s = await start({ extra: `metrics: { token: "${TOKEN}" }` });
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Basic ${TOKEN}` },
      { authorization: `Bearer ${TOKEN}x` },
    ];
    for (const headers of refused) {
      const res = await fetch(`${s.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({ errors: [{ status: 401, title: 'Unauthorized access', detail: expect.any(String) }] });
    }
    expect((await scrape(s, TOKEN)).value('statusbot_http_request_duration_seconds_count', { route: '/metrics', method: 'GET', status: '401' })).toBe(4);
    const head = await fetch(`${s.url}/metrics`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it("charges wrong tokens to the address's budget that wrong API keys draw on, and never refuses the right token", async () => {
    const s = await start({ extra: `metrics: { token: "${TOKEN}" }\nrate_limit: { per_minute: 3 }` });
    const wrong = () => fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } });
    for (let i = 0; i < 3; i++) expect((await wrong()).status).toBe(401);
    const limited = await wrong();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toEqual({ errors: [{ status: 429, title: expect.any(String), detail: expect.stringContaining('Rate limit') }] });
    // The same budget: a wrong API key from this address is refused as well.
    expect((await fetch(`${s.url}/api/v2/services`, { headers: { authorization: 'Bearer not-a-key-0123456789' } })).status).toBe(429);
    expect((await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('allows only GET and HEAD', async () => {
    const s = await start();
    const res = await fetch(`${s.url}/metrics`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect((await res.json()).errors[0].status).toBe(405);
  });

  it('must be at least 16 characters, without spaces', () => {
    expect(() => parseConfig('test.yml', 'metrics: { token: short }')).toThrow(ConfigError);
    expect(() => parseConfig('test.yml', 'metrics: { token: "with a space in the middle" }')).toThrow(/metrics/);
    expect(parseConfig('test.yml', `metrics: { token: "${TOKEN}" }`).config.metrics).toEqual({ token: TOKEN });
    expect(parseConfig('test.yml', '').config.metrics).toEqual({});
  });
});
