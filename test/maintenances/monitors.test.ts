import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { createProbeClient } from '../../src/probes/probe-client.js';
import { createMonitorProber } from '../../src/jobs/monitor-prober.js';
import { startFakeTarget } from '../fakes/fake-target.js';
import type { FakeTarget } from '../fakes/fake-target.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

let target: FakeTarget;
beforeAll(async () => {
  target = await startFakeTarget();
});
afterAll(async () => {
  await target.close();
});

describe('monitors during a maintenance of their service', () => {
  let s: TestServer;
  afterEach(async () => {
    target.mode = 'ok';
    await s.stop();
  });

  it('open no incident and page no one, leave the time out of their uptime, and count again once it is over', async () => {
    s = await startTestServer({
      config: `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    custom_monitors:
      - { id: 501, name: API health, url: "${target.url}/health", probe_type: ping, service: acme-api }
      - { id: 502, name: Web health, url: "${target.url}/health", probe_type: ping, service: acme-web }
    slack: { team_id: T1 }
    channels:
      - { slack: C-OPS, monitors: [501, 502] }
`,
    });
    const probes = createProbeClient({ timeoutMs: 500, blockPrivateTargets: false, userAgent: 'statusbot-test' });
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'eu-west', logger: silentLogger });
    const monitors = async () =>
      Object.fromEntries(
        (await s.api('GET', '/api/v2/custom_monitors')).body.data.map(
          (m: { id: string; attributes: { status: string; ongoing_incidents: { data: unknown[] } } }) => [
            m.id,
            { status: m.attributes.status, incidents: m.attributes.ongoing_incidents.data.length },
          ],
        ),
      );
    const alerts = async () =>
      (await s.ctx.db.selectFrom('outbox').select('payload').where('stream', '=', 'slack:T1:C-OPS').orderBy('id').execute()).map(
        (r) => JSON.parse(r.payload) as { monitor: { id: number }; change: string },
      );
    const probesOf = async (id: number) =>
      (await s.ctx.db.selectFrom('probe_hours').select(['probes', 'ups']).where('monitor_id', '=', id).execute()).reduce(
        (sum, r) => ({ probes: sum.probes + Number(r.probes), ups: sum.ups + Number(r.ups) }),
        { probes: 0, ups: 0 },
      );

    try {
      const res = await s.api('POST', '/api/v2/maintenances', { body: { title: 'API move', service_ids: [1001], starts_at: at(1), ends_at: at(2) } });
      expect(res.status, res.text).toBe(201);
      await prober.probeAll();

      s.clock.set(at(1));
      target.mode = 'fail';
      for (let i = 0; i < 3; i++) await prober.probeAll();
      expect(await monitors()).toEqual({ '501': { status: 'ok', incidents: 0 }, '502': { status: 'down', incidents: 1 } });
      expect((await alerts()).map((a) => [a.monitor.id, a.change])).toEqual([[502, 'down']]);
      expect(await probesOf(501)).toEqual({ probes: 1, ups: 1 });
      expect(await probesOf(502)).toEqual({ probes: 4, ups: 1 });

      s.clock.set(at(2));
      for (let i = 0; i < 2; i++) await prober.probeAll();
      expect(await monitors()).toEqual({ '501': { status: 'down', incidents: 1 }, '502': { status: 'down', incidents: 1 } });
      expect((await alerts()).map((a) => [a.monitor.id, a.change])).toEqual([
        [502, 'down'],
        [501, 'down'],
      ]);
      expect(await probesOf(501)).toEqual({ probes: 3, ups: 1 });
    } finally {
      await probes.close();
    }
  });

  it('refuses a config whose monitor names a service that is not one of the company, changing nothing', async () => {
    s = await startTestServer();
    const config = (service: string) => `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping, service: ${service} }
  - name: Globex
    plan: business
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;
    await expect(applySetup(s.ctx, parseConfig('test.yml', config('globex-api')).config.setup)).rejects.toMatchObject({
      code: 'invalid_input',
      issues: [{ path: ['companies', 0, 'custom_monitors', 0, 'service'] }],
    });
    const stored = await s.ctx.db.selectFrom('custom_monitors').select('service_id').where('id', '=', 501).executeTakeFirstOrThrow();
    expect(stored.service_id).toBeNull();
    await applySetup(s.ctx, parseConfig('test.yml', config('acme-api')).config.setup);
    const linked = await s.ctx.db.selectFrom('custom_monitors').select('service_id').where('id', '=', 501).executeTakeFirstOrThrow();
    expect(Number(linked.service_id)).toBe(1001);
  });
});
