import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { manualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { createProbeClient } from '../../src/probes/probe-client.js';
import { createMonitorProber } from '../../src/jobs/monitor-prober.js';
import { startFakeTarget } from '../fakes/fake-target.js';
import { apiDocumentCheck } from '../helpers/api-document.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const CONFIG = `
public_url: http://status.test
region: hq
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    regions: { quorum: 2 }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Backup, probe_type: heartbeat, interval_seconds: 3600 }
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - { name: Acme status, slug: acme, services: [acme-api], monitors: [501] }
    slack: { team_id: T1 }
    channels:
      - { slack: C-OPS, monitors: [501] }
  - name: Globex
    plan: business
    api_keys: ["globex-key-1"]
    custom_monitors:
      - { id: 601, name: Globex home, url: "http://127.0.0.1:9/", probe_type: ping }
`;

let dir: string;
let s: TestServer;
const cli = (...args: string[]) => runCli([...args, '--db', s.dbPath], { cwd: dir });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-regions-'));
  // Time stands still 200 s ago and moves when a test says: the CLI reads staleness against the time it really is.
  s = await startTestServer({ config: CONFIG, clock: manualClock(Date.now() - 200_000) });
});
afterEach(async () => {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function agentToken(region: string, company = 'Acme'): Promise<{ token: string; id: string }> {
  const res = await cli('key', 'create', '--agent', '--company', company, '--region', region);
  expect(res.code, res.stderr).toBe(0);
  return { token: res.stdout.trim(), id: /token (\d+)/.exec(res.stderr)![1]! };
}

const agentCall = async (token: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
  const res = await fetch(`${s.url}/api/v2/agent/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const fail = (reason: string, ageMs = 0) => ({ monitor_id: 501, ok: false, reason, latency_ms: 12, age_ms: ageMs });
const report = (token: string, results: unknown[]) => agentCall(token, 'POST', 'results', { results });
const homepage = async () => (await s.api('GET', '/api/v2/custom_monitors')).body.data.find((m: any) => m.id === '501').attributes;

describe('probe agents and the quorum of regions', () => {
  it('assigns every monitor of the company but heartbeats, and opens an incident only when the quorum of regions sees it down', async () => {
    const eu = await agentToken('eu');
    const us = await agentToken('us');
    const assigned = await agentCall(eu.token, 'GET', 'assignments');
    expect(assigned.status).toBe(200);
    expect(assigned.body.data.region).toBe('eu');
    expect(assigned.body.data.monitors).toEqual([
      expect.objectContaining({ id: 501, url: 'http://127.0.0.1:9/health', probe_type: 'ping', interval_seconds: 60 }),
    ]);

    // One region failing is not the quorum of two.
    expect((await report(eu.token, [fail('HTTP 500', 1_000), fail('HTTP 500')])).status).toBe(202);
    expect(await homepage()).toMatchObject({ status: 'ok', ongoing_incidents: { data: [] } });

    expect((await report(us.token, [fail('connection refused', 1_000), fail('connection refused')])).status).toBe(202);
    const down = await homepage();
    expect(down.status).toBe('down');
    expect(down.ongoing_incidents.data.map((i: any) => i.attributes.description)).toEqual(['Down in eu: HTTP 500; us: connection refused']);

    // One region recovering loses the quorum: the incident resolves.
    expect((await report(eu.token, [{ monitor_id: 501, ok: true, latency_ms: 8 }])).status).toBe(202);
    expect(await homepage()).toMatchObject({ status: 'ok', ongoing_incidents: { data: [] } });
    const history = await s.api('GET', '/api/v2/custom_monitors/501/incidents');
    expect(history.body.data.map((i: any) => [i.attributes.description, i.attributes.resolved])).toEqual([
      ['Down in eu: HTTP 500; us: connection refused', true],
    ]);
    // The channel that follows the monitor hears of both, once each.
    const told = await s.ctx.db.selectFrom('outbox').select('payload').where('stream', '=', 'slack:T1:C-OPS').orderBy('id').execute();
    expect(told.map((r) => JSON.parse(r.payload))).toEqual([
      expect.objectContaining({ change: 'down', region: 'eu, us', description: 'Down in eu: HTTP 500; us: connection refused' }),
      expect.objectContaining({ change: 'recovered', region: 'eu', description: 'Up again in eu' }),
    ]);
  });

  it("refuses results for another company's monitor or a heartbeat, and malformed ones, in the API's error shape", async () => {
    const eu = await agentToken('eu');
    const other = await report(eu.token, [{ monitor_id: 601, ok: false, reason: 'HTTP 500' }]);
    expect(other.status).toBe(422);
    expect(other.body.errors[0]).toMatchObject({ status: 422, source: { pointer: '/results/0/monitor_id' } });
    expect((await report(eu.token, [{ monitor_id: 502, ok: true }])).status).toBe(422);
    const malformed = await report(eu.token, [{ monitor_id: 501, ok: 'yes' }]);
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors[0].source.pointer).toBe('/results/0/ok');
  });

  it('keeps agent tokens and API keys apart, and refuses a revoked token from the next request', async () => {
    const eu = await agentToken('eu');
    expect((await agentCall(ACME_KEY, 'GET', 'assignments')).status).toBe(401);
    expect((await s.api('GET', '/api/v2/custom_monitors', { key: eu.token })).status).toBe(401);
    expect((await agentCall(eu.token, 'GET', 'assignments')).status).toBe(200);

    // Nothing else, not even to learn that a path is unknown or takes another method.
    for (const [method, path] of [
      ['GET', '/api/v2/nowhere'],
      ['DELETE', '/api/v2/agent/results'],
      ['GET', '/api/v2/agent/%ff'],
    ] as const) {
      const res = await fetch(`${s.url}${path}`, { method, headers: { authorization: `Bearer ${eu.token}` } });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    // An API key is told what the path is as before.
    expect((await s.api('DELETE', '/api/v2/agent/results')).status).toBe(405);
    expect((await s.api('GET', '/api/v2/nowhere')).status).toBe(404);

    const revoked = await cli('key', 'revoke', eu.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await report(eu.token, [fail('HTTP 500')]);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0]).toMatchObject({ status: 401 });
    expect((await agentCall(eu.token, 'GET', 'assignments')).status).toBe(401);
  });

  it('counts no stale region toward the quorum, and lists agents with their last report and staleness', async () => {
    const eu = await agentToken('eu');
    const us = await agentToken('us');
    await agentToken('ap');
    await report(eu.token, [fail('HTTP 500', 1_000), fail('HTTP 500')]);
    const euAt = s.clock.now().toISOString();
    // Two intervals (60 s) later eu has said nothing since: its failures no longer count.
    s.clock.advance(199_000);
    await report(us.token, [fail('HTTP 502', 1_000), fail('HTTP 502')]);
    expect(await homepage()).toMatchObject({ status: 'ok', ongoing_incidents: { data: [] } });

    const listed = await cli('agents', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^\d+\tAcme\tap\tno report yet\tstale$/),
      expect.stringMatching(new RegExp(`^${eu.id}\\tAcme\\teu\\tlast report ${euAt}\\tstale$`)),
      expect.stringMatching(new RegExp(`^${us.id}\\tAcme\\tus\\tlast report ${s.clock.now().toISOString()}\\treporting$`)),
    ]);

    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toContain('statusbot_agent_last_report_seconds{region="eu"} 199');
    expect(metrics).toContain('statusbot_agent_last_report_seconds{region="us"} 0');
    expect(metrics).toContain('statusbot_agent_last_report_seconds{region="ap"} +Inf');
    expect(metrics).toContain('statusbot_agent_stale{region="eu"} 1');
    expect(metrics).toContain('statusbot_agent_stale{region="us"} 0');

    // eu reports again, with what its buffer dropped meanwhile: two fresh regions see it down.
    expect((await agentCall(eu.token, 'POST', 'results', { results: [fail('HTTP 500')], dropped: 7 })).status).toBe(202);
    expect((await cli('agents', 'list')).stdout).toMatch(new RegExp(`^${eu.id}\\tAcme\\teu\\tlast report \\S+\\treporting\\tdropped 7$`, 'm'));
    expect((await homepage()).ongoing_incidents.data[0].attributes.description).toBe('Down in eu: HTTP 500; us: HTTP 502');
  });

  it('shows the latest response time of each region on the status page and the monitor page', async () => {
    const eu = await agentToken('eu');
    const us = await agentToken('us');
    await report(eu.token, [{ monitor_id: 501, ok: true, latency_ms: 12 }]);
    const onePage = await (await fetch(`${s.url}/status/acme`)).text();
    // One region alone says nothing a region list would add.
    expect(onePage).not.toContain('class="regions"');
    await report(us.token, [fail('HTTP 500', 1_000), { monitor_id: 501, ok: true, latency_ms: 340 }]);
    for (const path of ['/status/acme', '/status/acme/monitors/501']) {
      const html = await (await fetch(`${s.url}${path}`)).text();
      expect(html, path).toContain('<b>eu</b> 12 ms');
      expect(html, path).toContain('<b>us</b> 340 ms');
    }
    await report(us.token, [fail('HTTP 500')]);
    expect(await (await fetch(`${s.url}/status/acme/monitors/501`)).text()).toContain('<b>us</b> last probe failed');
  });

  it("counts the server's own region with the agents', and shows its response time beside theirs", async () => {
    const target = await startFakeTarget();
    try {
      await s.ctx.db
        .updateTable('custom_monitors')
        .set({ url: `${target.url}/health` })
        .where('id', '=', 501)
        .execute();
      const probes = createProbeClient({ timeoutMs: 1_000, blockPrivateTargets: false, userAgent: 'statusbot-test' });
      const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'hq', logger: silentLogger });
      const eu = await agentToken('eu');
      await report(eu.token, [{ monitor_id: 501, ok: true, latency_ms: 12 }]);
      await prober.probeAll();
      const html = await (await fetch(`${s.url}/status/acme/monitors/501`)).text();
      expect(html).toMatch(/<b>hq<\/b> \d+ ms/);
      expect(html).toContain('<b>eu</b> 12 ms');

      target.mode = 'fail';
      await prober.probeAll();
      await prober.probeAll();
      expect(await homepage()).toMatchObject({ status: 'ok' });
      s.clock.advance(2_000);
      await report(eu.token, [fail('HTTP 500', 1_000), fail('HTTP 500')]);
      expect((await homepage()).ongoing_incidents.data[0].attributes.description).toBe('Down in eu: HTTP 500; hq: HTTP 503');
      await probes.close();
    } finally {
      await target.close();
    }
  });

  it("keeps each region's hourly history, the agents' and the server's, beside the combined one, and charts each", async () => {
    const eu = await agentToken('eu');
    const us = await agentToken('us');
    await report(eu.token, [
      { monitor_id: 501, ok: true, latency_ms: 12 },
      { monitor_id: 501, ok: true, latency_ms: 20 },
    ]);
    await report(us.token, [fail('HTTP 500')]);
    const probes = createProbeClient({ timeoutMs: 1_000, blockPrivateTargets: false, userAgent: 'statusbot-test' });
    try {
      // Nothing listens on port 9: the server's own region sees it fail.
      await createMonitorProber({ ctx: s.ctx, client: probes, region: 'hq', logger: silentLogger }).probeAll();
    } finally {
      await probes.close();
    }
    const hours = await s.ctx.db
      .selectFrom('probe_region_hours')
      .select(['region', 'probes', 'ups', 'total_ms'])
      .where('monitor_id', '=', 501)
      .orderBy('region')
      .execute();
    expect(hours).toEqual([
      { region: 'eu', probes: 2, ups: 2, total_ms: 32 },
      { region: 'hq', probes: 1, ups: 0, total_ms: 0 },
      { region: 'us', probes: 1, ups: 0, total_ms: 0 },
    ]);
    const combined = await s.ctx.db.selectFrom('probe_hours').select(['probes', 'ups', 'total_ms']).where('monitor_id', '=', 501).execute();
    expect(combined).toEqual([{ probes: 4, ups: 2, total_ms: 32 }]);

    const page = async (query: string) => (await fetch(`${s.url}/status/acme/monitors/501${query}`)).text();
    const all = await page('');
    expect(all).toContain('<b>eu</b> Average response time, last 24 hours: 16 ms, max 20 ms; no failed probes');
    expect(all).toContain('<b>hq</b> Response time, last 24 hours: no successful probe; 1 failed probe of 1');
    expect(all).toContain('<a href="/status/acme/monitors/501?region=us">us</a>');
    expect(await page('?region=eu')).toContain('aria-label="Average response time, last 24 hours from eu: 16 ms, max 20 ms; no failed probes"');
  });

  it('records a batch sent again (its answer lost) once: no probe counted twice, no drop either', async () => {
    const eu = await agentToken('eu');
    const up = (seq: number, latency: number) => ({ monitor_id: 501, ok: true, latency_ms: latency, seq });
    const euHours = async () =>
      (await s.ctx.db.selectFrom('probe_region_hours').select(['probes', 'total_ms']).where('region', '=', 'eu').where('monitor_id', '=', 501).execute())[0];
    const first = { run: 'run-1', results: [up(1, 10), up(2, 20)], dropped: 3 };
    expect(await agentCall(eu.token, 'POST', 'results', first)).toEqual({ status: 202, body: { data: { accepted: 2, repeated: 0 } } });
    expect(await agentCall(eu.token, 'POST', 'results', first)).toEqual({ status: 202, body: { data: { accepted: 0, repeated: 2 } } });
    expect(await euHours()).toEqual({ probes: 2, total_ms: 30 });
    // Sent again with what came since: only that is new.
    expect((await agentCall(eu.token, 'POST', 'results', { run: 'run-1', results: [up(2, 20), up(3, 40)] })).body.data).toEqual({ accepted: 1, repeated: 1 });
    // A restarted agent counts anew.
    expect((await agentCall(eu.token, 'POST', 'results', { run: 'run-2', results: [up(1, 50)] })).body.data).toEqual({ accepted: 1, repeated: 0 });
    expect(await euHours()).toEqual({ probes: 4, total_ms: 120 });
    const combined = await s.ctx.db.selectFrom('probe_hours').select(['probes']).where('monitor_id', '=', 501).execute();
    expect(combined).toEqual([{ probes: 4 }]);
    const listed = await cli('agents', 'list');
    expect(listed.stdout).toContain('dropped 3');

    // With a run, every result says where it is in it.
    const unnumbered = await agentCall(eu.token, 'POST', 'results', { run: 'run-2', results: [{ monitor_id: 501, ok: true, latency_ms: 5 }] });
    expect(unnumbered.status).toBe(422);
    expect(unnumbered.body.errors[0].detail).toContain('seq');
    expect(await euHours()).toEqual({ probes: 4, total_ms: 120 });
  });

  it("counts a run's drops once, also when a batch is sent again with results added since", async () => {
    const eu = await agentToken('eu');
    const up = (seq: number) => ({ monitor_id: 501, ok: true, latency_ms: 10, seq });
    const droppedOf = async () => new RegExp(`^${eu.id}\\t.*\\tdropped (\\d+)$`, 'm').exec((await cli('agents', 'list')).stdout)?.[1] ?? '0';
    const first = { run: 'run-7', results: [up(1)], dropped: 2, dropped_total: 2 };
    expect((await agentCall(eu.token, 'POST', 'results', first)).body.data).toEqual({ accepted: 1, repeated: 0 });
    expect(await droppedOf()).toBe('2');
    // Its answer lost, the batch goes again with a result added since: the same two drops, told again.
    expect((await agentCall(eu.token, 'POST', 'results', { ...first, results: [up(1), up(2)] })).body.data).toEqual({ accepted: 1, repeated: 1 });
    expect(await droppedOf()).toBe('2');
    // Three more dropped since: the run's total is five.
    expect((await agentCall(eu.token, 'POST', 'results', { run: 'run-7', results: [up(3)], dropped: 3, dropped_total: 5 })).status).toBe(202);
    expect((await agentCall(eu.token, 'POST', 'results', { run: 'run-7', results: [up(3)], dropped: 3, dropped_total: 5 })).body.data).toEqual({
      accepted: 0,
      repeated: 1,
    });
    expect(await droppedOf()).toBe('5');
    // A restarted agent's run counts from nothing.
    expect((await agentCall(eu.token, 'POST', 'results', { run: 'run-8', results: [up(1)], dropped: 1, dropped_total: 1 })).status).toBe(202);
    expect(await droppedOf()).toBe('6');
    // A total without the run it counts is refused, and changes nothing.
    const unrun = await agentCall(eu.token, 'POST', 'results', { results: [], dropped_total: 9 });
    expect(unrun.status).toBe(422);
    expect(unrun.body.errors[0].source.pointer).toBe('/dropped_total');
    expect(await droppedOf()).toBe('6');
  });

  it('records a batch sent to two replicas at once only once', async () => {
    const other = await startTestServer({ dbPath: s.dbPath, config: CONFIG, clock: manualClock(Date.now() - 200_000) });
    try {
      const eu = await agentToken('eu');
      const batch = { run: 'run-1', results: [1, 2, 3].map((seq) => ({ monitor_id: 501, ok: true, latency_ms: 10, seq })) };
      const post = async (url: string) => {
        const res = await fetch(`${url}/api/v2/agent/results`, {
          method: 'POST',
          headers: { authorization: `Bearer ${eu.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        });
        expect(res.status).toBe(202);
        return ((await res.json()) as { data: { accepted: number; repeated: number } }).data;
      };
      const answers = await Promise.all([s.url, other.url, s.url, other.url, s.url, other.url].map(post));
      expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(3);
      const hours = await s.ctx.db.selectFrom('probe_region_hours').select('probes').where('region', '=', 'eu').where('monitor_id', '=', 501).execute();
      expect(hours).toEqual([{ probes: 3 }]);
    } finally {
      await other.stop();
    }
  });

  it('answers the agent and heartbeat operations as the API description says', async () => {
    const check = apiDocumentCheck();
    const call = async (method: string, path: string, token: string | null, body?: unknown) => {
      const res = await fetch(`${s.url}${path}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      const answer = { method, path, status: res.status, headers: res.headers, text, body: text === '' ? undefined : JSON.parse(text) };
      expect(check.problems(answer), `${method} ${path} ${res.status}`).toEqual([]);
      return answer;
    };
    const eu = await agentToken('eu');
    expect((await call('GET', '/api/v2/agent/assignments', eu.token)).status).toBe(200);
    expect((await call('POST', '/api/v2/agent/results', eu.token, { results: [fail('HTTP 500')], dropped: 2 })).status).toBe(202);
    expect((await call('POST', '/api/v2/agent/results', eu.token, { results: [] })).status).toBe(202);
    expect((await call('POST', '/api/v2/agent/results', eu.token, { results: [{ monitor_id: 601, ok: true }] })).status).toBe(422);
    expect((await call('GET', '/api/v2/agent/assignments', ACME_KEY)).status).toBe(401);

    const backup = (await s.api('GET', '/api/v2/custom_monitors')).body.data.find((m: any) => m.id === '502').attributes;
    const push = new URL(backup.push_url).pathname;
    expect((await call('GET', push, null)).status).toBe(204);
    expect((await call('POST', `${push}?status=down&msg=disk%20full`, null)).status).toBe(204);
    expect((await call('GET', '/api/v2/heartbeats/not-a-token', null)).status).toBe(404);
  });
});
