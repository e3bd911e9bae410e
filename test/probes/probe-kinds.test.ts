import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorAnnouncement } from '../../src/domain/notifications/announcement.js';
import { createProbeClient } from '../../src/probes/probe-client.js';
import { createMonitorProber } from '../../src/jobs/monitor-prober.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { parseConfig } from '../../src/config/load-config.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { startFakeDnsServer } from '../fakes/fake-dns-server.js';
import type { FakeDnsServer } from '../fakes/fake-dns-server.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { selfSignedCertificate } from '../helpers/self-signed-certificate.js';

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

let tcp: Server;
let openPort: number;
let closedPort: number;
let dns: FakeDnsServer;
beforeAll(async () => {
  tcp = createServer((socket) => socket.end());
  openPort = await listen(tcp);
  const spare = createServer();
  closedPort = await listen(spare);
  await new Promise<void>((resolve) => spare.close(() => resolve()));
  dns = await startFakeDnsServer({ 'api.acme.example': { A: ['198.51.100.1'] } });
});
afterAll(async () => {
  await new Promise<void>((resolve) => tcp.close(() => resolve()));
  await dns.close();
});

let s: TestServer;
afterEach(async () => {
  await s.stop();
});

const monitors = async (): Promise<Record<string, any>> =>
  Object.fromEntries((await s.api('GET', '/api/v2/custom_monitors')).body.data.map((m: any) => [m.id, m.attributes]));
const sent = async () =>
  (await s.ctx.db.selectFrom('outbox').select(['event', 'payload']).where('stream', '=', 'slack:T1:C-OPS').orderBy('id').execute()).map(
    (r) => JSON.parse(r.payload) as MonitorAnnouncement,
  );

describe('tcp and dns monitors', () => {
  it('show their probe_type, go down naming the failure in the incident and the channel, and stay up when healthy', async () => {
    s = await startTestServer({
      config: `
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 601, name: Postgres port, probe_type: tcp, url: "tcp://127.0.0.1:${closedPort}", interval_seconds: 30 }
      - { id: 602, name: API DNS, probe_type: dns, url: "dns://api.acme.example", record: A, expect: ["203.0.113.7"], dns_server: "${dns.address}" }
      - { id: 603, name: Open port, probe_type: tcp, url: "tcp://127.0.0.1:${openPort}" }
      - { id: 604, name: Any answer, probe_type: dns, url: "dns://api.acme.example", dns_server: "${dns.address}" }
    slack: { team_id: T1 }
    channels:
      - { slack: C-OPS, monitors: [601, 602] }
`,
    });
    const probes = createProbeClient({ timeoutMs: 1_000, blockPrivateTargets: false, userAgent: 'statusbot-test' });
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'eu-west', logger: silentLogger });
    try {
      await prober.probeAll();
      await prober.probeAll();
      const seen = await monitors();
      expect(seen['601']).toMatchObject({ probe_type: 'tcp', url: `tcp://127.0.0.1:${closedPort}`, status: 'down' });
      expect(seen['601'].ongoing_incidents.data[0].attributes.description).toBe('Down in eu-west: connection refused');
      expect(seen['602']).toMatchObject({ probe_type: 'dns', status: 'down' });
      expect(seen['602'].ongoing_incidents.data[0].attributes.description).toBe('Down in eu-west: answered 198.51.100.1, expected 203.0.113.7');
      expect(seen['603']).toMatchObject({ probe_type: 'tcp', status: 'ok', ongoing_incidents: { data: [] } });
      expect(seen['604']).toMatchObject({ probe_type: 'dns', status: 'ok' });
      expect(seen['601']).not.toHaveProperty('push_url');
      expect((await sent()).map((a) => [a.monitor.id, a.change, a.description]).sort()).toEqual([
        [601, 'down', 'Down in eu-west: connection refused'],
        [602, 'down', 'Down in eu-west: answered 198.51.100.1, expected 203.0.113.7'],
      ]);

      dns.zone.set('api.acme.example', { A: ['203.0.113.7'] });
      await prober.probeAll();
      expect((await monitors())['602']).toMatchObject({ status: 'ok', ongoing_incidents: { data: [] } });
      expect((await sent()).at(-1)).toMatchObject({ monitor: { id: 602 }, change: 'recovered' });
    } finally {
      await probes.close();
    }
  });
});

describe('tls monitors', () => {
  it('go down when the certificate expires within days_before_expiry, the incident saying when', async () => {
    const now = Date.now();
    const soon = selfSignedCertificate({ from: new Date(now - 86_400_000), until: new Date(now + 3 * 86_400_000 - 60_000) });
    const server = createTlsServer({ key: soon.key, cert: soon.cert }, (socket) => socket.end());
    const port = await listen(server);
    s = await startTestServer({
      config: `
companies:
  - name: Acme
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 603, name: API certificate, probe_type: tls, url: "https://localhost:${port}", days_before_expiry: 14 }
      - { id: 604, name: Relaxed, probe_type: tls, url: "https://localhost:${port}", days_before_expiry: 1 }
`,
    });
    const probes = createProbeClient({ timeoutMs: 1_000, blockPrivateTargets: false, userAgent: 'statusbot-test', trustedCertificates: [soon.cert] });
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'eu-west', logger: silentLogger });
    try {
      await prober.probeAll();
      await prober.probeAll();
      const seen = await monitors();
      expect(seen['603']).toMatchObject({ probe_type: 'tls', status: 'down' });
      expect(seen['603'].ongoing_incidents.data[0].attributes.description).toBe(
        `Down in eu-west: certificate expires in 3 days (${soon.notAfter.toISOString().slice(0, 10)})`,
      );
      expect(seen['604']).toMatchObject({ probe_type: 'tls', status: 'ok' });
    } finally {
      await probes.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('heartbeat monitors', () => {
  const HOUR = 3_600_000;
  const CONFIG = `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 604, name: Nightly backup, probe_type: heartbeat, interval_seconds: 86400, grace_seconds: 3600 }
    slack: { team_id: T1 }
    channels:
      - { slack: C-OPS, monitors: [604] }
  - name: Other
    api_keys: ["sk_other_0123456789abcdef0123456789"]
`;
  const ping = (token: string, init: { method?: string; query?: string; body?: string } = {}) =>
    fetch(`${s.url}/api/v2/heartbeats/${token}${init.query ?? ''}`, { method: init.method ?? 'GET', ...(init.body ? { body: init.body } : {}) });

  it('take pings at their push address, go down when none came in interval + grace, and up at the next', async () => {
    s = await startTestServer({ config: CONFIG });
    const probes = createProbeClient({ timeoutMs: 1_000, blockPrivateTargets: false, userAgent: 'statusbot-test' });
    const prober = createMonitorProber({ ctx: s.ctx, client: probes, region: 'eu-west', logger: silentLogger });
    try {
      const shown = (await monitors())['604'];
      expect(shown).toMatchObject({ probe_type: 'heartbeat', status: 'ok' });
      expect(shown.push_url).toMatch(/^http:\/\/status\.test\/api\/v2\/heartbeats\/[A-Za-z0-9_-]{32}$/);
      const token = shown.push_url.split('/').at(-1) as string;
      const other = await s.api('GET', '/api/v2/custom_monitors', { key: 'sk_other_0123456789abcdef0123456789' });
      expect(JSON.stringify(other.body)).not.toContain(token);

      s.clock.advance(20 * HOUR);
      const get = await ping(token);
      expect(get.status).toBe(204);
      expect(await get.text()).toBe('');
      s.clock.advance(20 * HOUR);
      expect((await ping(token, { method: 'POST', body: 'backup done, 12 GB' })).status).toBe(204);
      const lastPing = s.clock.now().toISOString();

      // 24 h + 1 h of grace after the last ping: still up at the deadline, down just past it.
      s.clock.advance(25 * HOUR - 1_000);
      await prober.probeAll();
      expect((await monitors())['604'].status).toBe('ok');
      s.clock.advance(2_000);
      await prober.probeAll();
      const down = (await monitors())['604'];
      expect(down.status).toBe('down');
      expect(down.ongoing_incidents.data[0].attributes.description).toBe(`Down in eu-west: no heartbeat since ${lastPing}`);
      expect((await sent()).map((a) => [a.change, a.description])).toEqual([['down', `Down in eu-west: no heartbeat since ${lastPing}`]]);

      expect((await ping(token)).status).toBe(204);
      const up = (await monitors())['604'];
      expect(up).toMatchObject({ status: 'ok', ongoing_incidents: { data: [] } });
      expect((await sent()).at(-1)).toMatchObject({ change: 'recovered' });
      const history = await s.api('GET', '/api/v2/custom_monitors/604/incidents');
      expect(history.body.data[0].attributes).toMatchObject({ resolved: true, description: `Down in eu-west: no heartbeat since ${lastPing}` });
    } finally {
      await probes.close();
    }
  });

  it('go down at once on ?status=down naming the message; an unknown token is 404 in the error shape', async () => {
    s = await startTestServer({ config: CONFIG });
    const token = ((await monitors())['604'].push_url as string).split('/').at(-1) as string;
    expect((await ping(token, { query: '?status=down&msg=disk%20full' })).status).toBe(204);
    const down = (await monitors())['604'];
    expect(down.status).toBe('down');
    expect(down.ongoing_incidents.data[0].attributes.description).toBe('Down in local: reported down: disk full');

    const unknown = await ping('not-a-token', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ errors: [expect.objectContaining({ status: 404 })] });
    expect((await ping(token.slice(1))).status).toBe(404);
  });

  it('keep their push address when the config is applied again', async () => {
    s = await startTestServer({ config: CONFIG });
    const before = (await monitors())['604'].push_url;
    const { config } = parseConfig('statusbot.yml', CONFIG.replace('grace_seconds: 3600', 'grace_seconds: 7200'));
    await applySetup(s.ctx, config.setup);
    expect((await monitors())['604'].push_url).toBe(before);
    const stored = await s.ctx.db.selectFrom('custom_monitors').select('grace_seconds').where('id', '=', 604).executeTakeFirstOrThrow();
    expect(Number(stored.grace_seconds)).toBe(7200);
  });
});
