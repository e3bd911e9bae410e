/**
 * The probing benchmark (part of `npm run bench`): statusbot probes N custom
 * monitors (default 50,000) of every kind at a 60 s interval against local
 * servers, for a measured window after a warm-up. Reports the share of probes
 * started more than 1 s late, the CPU statusbot used (in cores), and its peak
 * RSS. The mix, by monitor: 40% ping, 15% keyword (HTTP on 127.0.0.1), 15% tcp
 * (a connection to the same listener), 10% dns (an A record from a DNS server
 * on a local port), 10% tls (a handshake with a local TLS server whose
 * certificate the probing process trusts), 10% heartbeat (pinged once a minute
 * each by this process).
 *
 * Environment: BENCH_MONITORS (default 50000), BENCH_PROBE_SECONDS (measured window, default 120),
 * BENCH_PROBE_WARMUP_SECONDS (default 65: one full round of probes first).
 */
import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { recordResult } from './results.js';
import { startServingChild } from './serving-child.js';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 50_000);
const SECONDS = Number(process.env.BENCH_PROBE_SECONDS ?? 120);
const WARMUP = Number(process.env.BENCH_PROBE_WARMUP_SECONDS ?? 65);
const TARGETS = { lateShare: 0.01, cores: 0.5, rssMb: 300 };
const KEY = 'bench-key-0123456789';

type Kind = 'ping' | 'keyword' | 'tcp' | 'dns' | 'tls' | 'heartbeat';
/** The kind of the i-th monitor: the mix out of every 20. */
function kindOf(i: number): Kind {
  const k = i % 20;
  if (k < 8) return 'ping';
  if (k < 11) return 'keyword';
  if (k < 14) return 'tcp';
  if (k < 16) return 'dns';
  if (k < 18) return 'tls';
  return 'heartbeat';
}

/** A DNS server on 127.0.0.1 answering every A question with 127.0.0.1. */
async function startDnsServer(): Promise<{ address: string; close(): void }> {
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => {
    if (query.length < 12) return;
    // The question ends at the zero label, then QTYPE and QCLASS.
    let end = 12;
    while (end < query.length && query[end] !== 0) end += query[end]! + 1;
    const question = query.subarray(12, end + 5);
    const header = Buffer.from(query.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(question.readUInt16BE(question.length - 4) === 1 ? 1 : 0, 6);
    header.writeUInt32BE(0, 8);
    const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]);
    socket.send(Buffer.concat([header, question, header.readUInt16BE(6) ? answer : Buffer.alloc(0)]), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return { address: `127.0.0.1:${socket.address().port}`, close: () => socket.close() };
}

/** A certificate for localhost, valid 90 days, made by the openssl command (which CI installs). */
function localCertificate(dir: string): { key: string; cert: string; certPath: string } {
  const keyPath = join(dir, 'tls.key');
  const certPath = join(dir, 'tls.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '90',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'pipe' },
  );
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
}

/** The monitors the server shows down, as `name (kind)`. */
async function downMonitors(port: number): Promise<string[]> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v2/custom_monitors`, { headers: { authorization: `Bearer ${KEY}` } });
  const { data } = (await res.json()) as { data: { attributes: { name: string; status: string; probe_type: string } }[] };
  return data.filter((m) => m.attributes.status === 'down').map((m) => `${m.attributes.name} (${m.attributes.probe_type})`);
}

/** Pings every heartbeat monitor once a minute, spread over the minute, as the jobs they watch would; returns the stop. */
async function pingHeartbeats(port: number): Promise<() => void> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v2/custom_monitors`, { headers: { authorization: `Bearer ${KEY}` } });
  if (!res.ok) throw new Error(`GET /api/v2/custom_monitors: HTTP ${res.status}`);
  const { data } = (await res.json()) as { data: { attributes: { push_url?: string } }[] };
  const paths = data.flatMap((m) => (m.attributes.push_url ? [new URL(m.attributes.push_url).pathname] : []));
  let next = 0;
  const perTick = paths.length / 600;
  let owed = 0;
  const timer = setInterval(() => {
    for (owed += perTick; owed >= 1; owed--) {
      const path = paths[next++ % paths.length]!;
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST' }).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
    }
  }, 100);
  return () => clearInterval(timer);
}

async function main(): Promise<number> {
  let hits = 0;
  const target = createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(req.url?.startsWith('/kw') ? '<html>Welcome. Sign in</html>' : 'ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const port = (target.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-probe-bench-'));
  const dns = await startDnsServer();
  const certificate = localCertificate(dir);
  const tls = createTlsServer({ key: certificate.key, cert: certificate.cert }, (socket) => socket.end());
  tls.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  const tlsPort = (tls.address() as AddressInfo).port;
  // The probing process trusts the local certificate, as a host trusts its own CA.
  process.env.NODE_EXTRA_CA_CERTS = certificate.certPath;

  const lines = ['rate_limit: { per_minute: 10000000 }', 'companies:', '  - name: Bench', `    api_keys: ["${KEY}"]`, '    custom_monitors:'];
  const counts: Record<Kind, number> = { ping: 0, keyword: 0, tcp: 0, dns: 0, tls: 0, heartbeat: 0 };
  for (let i = 1; i <= MONITORS; i++) {
    const kind = kindOf(i);
    counts[kind]++;
    const head = `      - { id: ${i}, name: m${i}, interval_seconds: 60, probe_type: ${kind}`;
    const rest = {
      ping: `url: "http://127.0.0.1:${port}/p/${i}"`,
      keyword: `url: "http://127.0.0.1:${port}/kw/${i}", keyword: "Sign in"`,
      tcp: `url: "tcp://127.0.0.1:${port}"`,
      dns: `url: "dns://m${i}.bench.test", record: A, expect: ["127.0.0.1"], dns_server: "${dns.address}"`,
      tls: `url: "https://localhost:${tlsPort}", days_before_expiry: 14`,
      heartbeat: 'grace_seconds: 60',
    }[kind];
    lines.push(`${head}, ${rest} }`);
  }
  const configPath = join(dir, 'statusbot.yml');
  writeFileSync(configPath, `${lines.join('\n')}\n`);

  let child: Awaited<ReturnType<typeof startServingChild>> | undefined;
  let stopPinging: () => void = () => undefined;
  try {
    child = await startServingChild(join(dir, 'statusbot.db'), configPath);
    const mix = Object.entries(counts)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ');
    console.log(`probing bench: ${MONITORS} monitors every 60 s against local servers (${mix}); ${WARMUP} s warm-up, ${SECONDS} s measured`);
    stopPinging = await pingHeartbeats(child.port);
    await new Promise((r) => setTimeout(r, WARMUP * 1000));
    const start = await child.mark();
    const t0 = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const end = await child.mark();
    const wallMicros = Number(process.hrtime.bigint() - t0) / 1000;

    const started = end.stats.started - start.stats.started;
    const late = end.stats.late - start.stats.late;
    const lateShare = started ? late / started : 0;
    const cores = (end.cpuMicros - start.cpuMicros) / wallMicros;
    const rssMb = end.maxRssKb / 1024;
    // Heartbeats are pinged, not probed.
    const expected = ((MONITORS - counts.heartbeat) * SECONDS) / 60;
    // Every target answers as the monitor expects: a monitor down means the bench, not the load, is wrong.
    const down = await downMonitors(child.port);
    const rows: [string, string, string][] = [
      ['monitors down (all targets healthy)', down.length === 0 ? '0' : `${down.length}: ${down.slice(0, 5).join(', ')}`, down.length === 0 ? 'yes' : 'NO'],
      ['probes started in the window', `${started} (expected ~${Math.round(expected)})`, ''],
      ['probes started > 1 s late', `${(lateShare * 100).toFixed(3)}% (${late})`, lateShare < TARGETS.lateShare ? 'yes' : 'NO'],
      ['statusbot CPU', `${cores.toFixed(3)} cores`, cores < TARGETS.cores ? 'yes' : 'NO'],
      ['statusbot peak RSS', `${rssMb.toFixed(1)} MB`, rssMb < TARGETS.rssMb ? 'yes' : 'NO'],
    ];
    console.log();
    for (const [what, value, met] of rows) console.log(`${what.padEnd(30)} ${value.padStart(26)}  ${met}`);
    console.log(`(target hits seen by the local server: ${hits})`);

    recordResult('probing', {
      monitors: MONITORS,
      mix: counts,
      seconds: SECONDS,
      started,
      late,
      lateShare,
      cores,
      peakRssMb: rssMb,
      date: new Date().toISOString(),
    });
    return rows.every(([, , met]) => met !== 'NO') ? 0 : 1;
  } finally {
    stopPinging();
    await child?.stop();
    dns.close();
    tls.close();
    target.close();
    target.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
