import { XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/monitors/probe-hours.js';
import { createProbeRollup } from '../../src/domain/monitors/probe-rollup.js';
import type { ProbeOutcome } from '../../src/domain/monitors/probe-results.js';
import { statuspageSummary } from '../../src/ingest/statuspage-payload.js';
import type { ProbeClient, ProbeTarget } from '../../src/probes/probe-client.js';
import { createMonitorProber } from '../../src/jobs/monitor-prober.js';
import { quietLogger as quiet } from '../helpers/loggers.js';
import { visibleText } from '../helpers/pages.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HEALTH = 'http://probe.test/health';
const LOGIN = 'http://probe.test/login';

const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Acme API health, url: "${HEALTH}", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Acme login, url: "${LOGIN}", probe_type: ping, interval_seconds: 60 }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api]
        monitors: [501, 502]
      - name: Acme probes
        slug: probes
        monitors: [502]
      - name: Acme soon
        slug: soon
`;

/** A probe client that answers from a script per URL (up once the script runs out), in no time. */
function scriptedClient(script: Map<string, boolean[]>): ProbeClient {
  return {
    async probe(target: ProbeTarget): Promise<ProbeOutcome> {
      return (script.get(target.url)?.shift() ?? true) ? { ok: true } : { ok: false, reason: 'HTTP 503' };
    },
    close: async () => undefined,
  };
}

let s: TestServer;
afterEach(async () => {
  await s?.stop();
});

const get = async (path: string) => {
  const res = await fetch(`${s.url}${path}`);
  expect(res.status, path).toBe(200);
  return res.text();
};
const pageText = async (path: string) => visibleText(await get(path));
const summary = async (slug: string) => {
  const doc = JSON.parse(await get(`/status/${slug}/api/v2/summary.json`));
  // Whatever it says, it stays a document Statuspage's readers (statusbot's own among them) accept.
  expect(statuspageSummary.safeParse(doc).success).toBe(true);
  return { status: doc.status, components: doc.components.map((c: any) => [c.name, c.status]) };
};
const badge = async (slug: string) => {
  const svg = await get(`/status/${slug}/badge.svg`);
  expect(XMLValidator.validate(svg)).toBe(true);
  return /aria-label="status: ([^"]+)"/.exec(svg)![1];
};

describe("a page's own status counts its monitors, and never states what was not read", () => {
  it('says No data for monitors never probed, and never All systems operational for a page with nothing known', async () => {
    s = await startTestServer({ config: CONFIG });
    const acme = await pageText('/status/acme');
    // Its service is known; its monitors are not, and the banner says so beside the status.
    expect(acme).toContain('All systems operational');
    expect(acme).toContain('No data yet (not probed): Acme API health, Acme login');
    expect(acme).toContain('Acme API health No data yet No probe results yet');
    expect(acme).not.toMatch(/\bUp\b/);
    expect(await summary('acme')).toEqual({
      status: { indicator: 'none', description: 'All Systems Operational' },
      components: [['Acme API', 'operational']],
    });
    const monitorPage = await pageText('/status/acme/monitors/501');
    expect(monitorPage).toContain('Acme API health No data yet');
    expect(monitorPage).not.toMatch(/\bUp\b|% uptime/);

    // A page of monitors only, none probed: nothing is known.
    const probes = await pageText('/status/probes');
    expect(probes).toContain('No data yet');
    expect(probes).not.toContain('operational');
    expect(await badge('probes')).toBe('no data');
    expect(await summary('probes')).toEqual({ status: { indicator: 'none', description: 'No Data Yet' }, components: [] });

    // A page that shows nothing at all says so.
    const soon = await pageText('/status/soon');
    expect(soon).toContain('This page shows nothing yet');
    expect(soon).not.toContain('operational');
    expect(await badge('soon')).toBe('no data');
    expect(await summary('soon')).toEqual({ status: { indicator: 'none', description: 'Nothing Shown Yet' }, components: [] });
  });

  it('turns the banner, the badge and summary.json to a partial outage when a monitor is down, and an incident outranks it', async () => {
    s = await startTestServer({ config: CONFIG });
    const script = new Map([[HEALTH, [false, false]]]);
    const prober = createMonitorProber({ ctx: s.ctx, client: scriptedClient(script), region: 'local', logger: quiet });

    // One failed probe is not yet down: the monitor says its last probe failed, not Up beside 0% uptime.
    await prober.probeAll();
    const once = await pageText('/status/acme');
    expect(once).toContain('All systems operational');
    expect(once).toContain('Acme API health Last probe failed 0% uptime over the last 90 days');
    expect(once).toContain('Acme login Up 100% uptime over the last 90 days');

    await prober.probeAll();
    const down = await pageText('/status/acme');
    expect(down).not.toContain('All systems operational');
    expect(down).toContain('Partial outage Subscribe Down: Acme API health');
    expect(down).toContain('Acme API health Down');
    expect(await badge('acme')).toBe('partial outage');
    expect(await summary('acme')).toEqual({
      status: { indicator: 'major', description: 'Partial System Outage' },
      components: [
        ['Acme API', 'operational'],
        ['Acme API health', 'major_outage'],
        ['Acme login', 'operational'],
      ],
    });
    // The page with the healthy monitor only is operational.
    expect(await pageText('/status/probes')).toContain('All systems operational');
    expect(await badge('probes')).toBe('operational');

    // A major incident of a service is worse than a monitor down.
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API down', status: 'major' } });
    expect(created.status).toBe(201);
    expect(await pageText('/status/acme')).toContain('Major outage Subscribe Down: Acme API health');
    expect(await badge('acme')).toBe('major outage');
    // Statuspage's words for its `major` indicator; "Major Service Outage" is its `critical`.
    expect((await summary('acme')).status).toEqual({ indicator: 'major', description: 'Partial System Outage' });

    // Back up: operational again.
    await prober.probeAll();
    await s.api('PATCH', `/api/v2/incidents/${created.body.data.id}`, { body: { resolution_stage: 'resolved', description: 'Fixed.' } });
    expect(await pageText('/status/acme')).toContain('All systems operational');
    expect(await badge('acme')).toBe('operational');
  });

  it('counts uptime over the time with probes only: a day without any is grey and left out', async () => {
    s = await startTestServer({ config: CONFIG });
    const rollup = createProbeRollup(s.ctx, 'local');
    const now = Date.parse(T0);
    // Two days ago every probe succeeded; yesterday nothing was probed; today half of them failed.
    for (let i = 0; i < 10; i++) rollup.record(501, new Date(now - 2 * DAY_MS), 100, true);
    for (let i = 0; i < 4; i++) rollup.record(501, new Date(now), 100, i % 2 === 0);
    await rollup.flush();

    const html = await get('/status/acme/monitors/501');
    const text = visibleText(html);
    // 12 of 14 probes: the day without data counts neither as up nor as down.
    expect(text).toContain('Acme API health Up');
    expect(text).toContain('85.71% uptime over the last 90 days');
    expect(html).toContain('<li class="x" tabindex="-1"><p><b>21 Nov 2026</b> No data</p></li>');
    expect(text).toContain('20 Nov 2026 100% up, 10 probes, none failed');
    expect(text).toContain('22 Nov 2026 50.00% up, 2 of 4 probes failed');
    expect(html.match(/<li class="x" tabindex="-1">/g)).toHaveLength(88);
    expect(text).toContain('Grey: no data, not counted');
    // The page's row of the monitor says the same.
    expect(await pageText('/status/acme')).toContain('Acme API health Up 85.71% uptime over the last 90 days');
  });
});
