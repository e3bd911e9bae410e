import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProbeClient } from '../../src/probes/probe-client.js';
import type { ProbeClient, ProbeTarget } from '../../src/probes/probe-client.js';
import { startFakeDnsServer } from '../fakes/fake-dns-server.js';
import type { FakeDnsServer } from '../fakes/fake-dns-server.js';
import { selfSignedCertificate } from '../helpers/self-signed-certificate.js';
import type { Certificate } from '../helpers/self-signed-certificate.js';

const DAY = 86_400_000;

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await close(server);
  return port;
}

let probes: ProbeClient;
const client = (overrides: Partial<Parameters<typeof createProbeClient>[0]> = {}) =>
  createProbeClient({ timeoutMs: 500, blockPrivateTargets: false, userAgent: 'statusbot-test', ...overrides });
afterEach(async () => {
  await probes?.close();
});

describe('tcp probes', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((socket) => socket.end());
    port = await listen(server);
  });
  afterAll(() => close(server));

  it('are up when the port accepts a connection, down with "connection refused" when closed', async () => {
    probes = client();
    expect(await probes.probe({ url: `tcp://127.0.0.1:${port}`, probeType: 'tcp', keyword: null })).toEqual({ ok: true });
    expect(await probes.probe({ url: `tcp://localhost:${port}`, probeType: 'tcp', keyword: null })).toEqual({ ok: true });
    expect(await probes.probe({ url: `tcp://127.0.0.1:${await closedPort()}`, probeType: 'tcp', keyword: null })).toEqual({
      ok: false,
      reason: 'connection refused',
    });
  });

  it('refuse private targets when told to, by literal and by resolved name', async () => {
    probes = client({ blockPrivateTargets: true });
    expect(await probes.probe({ url: `tcp://127.0.0.1:${port}`, probeType: 'tcp', keyword: null })).toEqual({
      ok: false,
      reason: 'blocked private target 127.0.0.1',
    });
    expect(await probes.probe({ url: `tcp://localhost:${port}`, probeType: 'tcp', keyword: null })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^blocked private target localhost \((127\.0\.0\.1|::1)\)$/),
    });
  });
});

describe('dns probes', () => {
  let dns: FakeDnsServer;
  beforeAll(async () => {
    dns = await startFakeDnsServer({
      'api.acme.example': { A: ['198.51.100.1'], AAAA: ['2001:db8::7'], MX: ['10 mail.acme.example'], TXT: ['v=spf1 -all'] },
      'www.acme.example': { CNAME: ['api.acme.example'] },
    });
  });
  afterAll(() => dns.close());
  const dnsProbe = (overrides: Partial<ProbeTarget>): ProbeTarget => ({
    url: 'dns://api.acme.example',
    probeType: 'dns',
    keyword: null,
    record: 'A',
    expect: null,
    dnsServer: dns.address,
    ...overrides,
  });

  it('are up when the record resolves, to one of the expected values when given', async () => {
    probes = client();
    expect(await probes.probe(dnsProbe({}))).toEqual({ ok: true });
    expect(await probes.probe(dnsProbe({ expect: ['203.0.113.7', '198.51.100.1'] }))).toEqual({ ok: true });
    expect(await probes.probe(dnsProbe({ record: 'AAAA', expect: ['2001:db8::7'] }))).toEqual({ ok: true });
    expect(await probes.probe(dnsProbe({ record: 'MX', expect: ['mail.acme.example'] }))).toEqual({ ok: true });
    expect(await probes.probe(dnsProbe({ record: 'TXT', expect: ['v=spf1 -all'] }))).toEqual({ ok: true });
    expect(await probes.probe(dnsProbe({ url: 'dns://www.acme.example', record: 'CNAME', expect: ['API.acme.example.'] }))).toEqual({ ok: true });
    expect(dns.queries.at(-1)).toEqual({ name: 'www.acme.example', type: 'CNAME' });
  });

  it('are down naming what was answered, or that nothing was', async () => {
    probes = client();
    expect(await probes.probe(dnsProbe({ expect: ['203.0.113.7'] }))).toEqual({ ok: false, reason: 'answered 198.51.100.1, expected 203.0.113.7' });
    expect(await probes.probe(dnsProbe({ url: 'dns://www.acme.example' }))).toEqual({ ok: false, reason: 'no A record for www.acme.example' });
    expect(await probes.probe(dnsProbe({ url: 'dns://gone.acme.example' }))).toEqual({ ok: false, reason: 'no A record for gone.acme.example' });
  });

  it('time out on a resolver that does not answer', async () => {
    probes = client({ timeoutMs: 300 });
    dns.silent = true;
    try {
      expect(await probes.probe(dnsProbe({}))).toEqual({ ok: false, reason: 'timeout after 0.3 s' });
    } finally {
      dns.silent = false;
    }
  });

  it('ask no private resolver when private targets are blocked', async () => {
    probes = client({ blockPrivateTargets: true });
    const asked = dns.queries.length;
    expect(await probes.probe(dnsProbe({}))).toEqual({ ok: false, reason: 'blocked private target 127.0.0.1' });
    expect(dns.queries.length).toBe(asked);
  });
});

describe('tls probes', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) await close(server);
  });
  async function tlsServer(certificate: Certificate): Promise<string> {
    const server = createTlsServer({ key: certificate.key, cert: certificate.cert }, (socket) => socket.end());
    servers.push(server);
    return `https://localhost:${await listen(server)}`;
  }
  const now = Date.now();
  const valid = selfSignedCertificate({ from: new Date(now - DAY), until: new Date(now + 90 * DAY) });
  const soon = selfSignedCertificate({ from: new Date(now - DAY), until: new Date(now + 3 * DAY - 60_000) });
  const expired = selfSignedCertificate({ from: new Date(now - 30 * DAY), until: new Date(now - 2 * DAY) });
  const tlsProbe = (url: string, daysBeforeExpiry = 14): ProbeTarget => ({ url, probeType: 'tls', keyword: null, daysBeforeExpiry });

  it('are up with a trusted certificate far from expiry', async () => {
    probes = client({ trustedCertificates: [valid.cert] });
    expect(await probes.probe(tlsProbe(await tlsServer(valid)))).toEqual({ ok: true });
  });

  it('are down when the certificate expires within days_before_expiry, saying when', async () => {
    probes = client({ trustedCertificates: [soon.cert] });
    const url = await tlsServer(soon);
    const day = soon.notAfter.toISOString().slice(0, 10);
    expect(await probes.probe(tlsProbe(url))).toEqual({ ok: false, reason: `certificate expires in 3 days (${day})` });
    expect(await probes.probe(tlsProbe(url, 2))).toEqual({ ok: true });
  });

  it('are down when the chain does not verify or the certificate expired', async () => {
    probes = client({ trustedCertificates: [expired.cert] });
    expect(await probes.probe(tlsProbe(await tlsServer(valid)))).toEqual({ ok: false, reason: 'certificate not valid: self-signed certificate' });
    const day = expired.notAfter.toISOString().slice(0, 10);
    expect(await probes.probe(tlsProbe(await tlsServer(expired)))).toEqual({ ok: false, reason: `certificate not valid: expired on ${day}` });
  });

  it('are down on a closed port, and refuse private targets when told to', async () => {
    probes = client({ blockPrivateTargets: true, trustedCertificates: [valid.cert] });
    expect(await probes.probe(tlsProbe(await tlsServer(valid)))).toEqual({
      ok: false,
      reason: expect.stringMatching(/^blocked private target localhost/),
    });
    await probes.close();
    probes = client();
    expect(await probes.probe(tlsProbe(`https://127.0.0.1:${await closedPort()}`))).toEqual({ ok: false, reason: 'connection refused' });
  });
});
