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
 * Then the same with probe agents: BENCH_AGENTS (default 3) `statusbot agent`
 * processes, each a region, probing BENCH_AGENT_MONITORS (default 30,000) monitors
 * of one company (no heartbeats) beside the server's own region; reported: the
 * CPU of the server and of each agent, and the share of each region's monitors
 * whose latest result is older than its interval and a half at the end.
 *
 * Environment: BENCH_MONITORS (default 50000), BENCH_PROBE_SECONDS (measured window, default 120),
 * BENCH_PROBE_WARMUP_SECONDS (default 65: one full round of probes first), BENCH_AGENTS (0: no agents part).
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { recordResult } from './results.js';
import { startServingChild } from './serving-child.js';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 50_000);
const SECONDS = Number(process.env.BENCH_PROBE_SECONDS ?? 120);
const WARMUP = Number(process.env.BENCH_PROBE_WARMUP_SECONDS ?? 65);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 3);
const AGENT_MONITORS = Number(process.env.BENCH_AGENT_MONITORS ?? 30_000);
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

/** The local servers every monitor probes: HTTP (also for tcp), DNS and TLS, and the monitors' config lines. */
async function startTargets(dir: string) {
  let hits = 0;
  const http = createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(req.url?.startsWith('/kw') ? '<html>Welcome. Sign in</html>' : 'ok');
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  const dns = await startDnsServer();
  const certificate = localCertificate(dir);
  const tls = createTlsServer({ key: certificate.key, cert: certificate.cert }, (socket) => socket.end());
  tls.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  const tlsPort = (tls.address() as AddressInfo).port;
  // Every probing process trusts the local certificate, as a host trusts its own CA.
  process.env.NODE_EXTRA_CA_CERTS = certificate.certPath;
  return {
    hits: () => hits,
    /** The config line of monitor `i` of `kind`. */
    monitor(i: number, kind: Kind): string {
      const rest = {
        ping: `url: "http://127.0.0.1:${port}/p/${i}"`,
        keyword: `url: "http://127.0.0.1:${port}/kw/${i}", keyword: "Sign in"`,
        tcp: `url: "tcp://127.0.0.1:${port}"`,
        dns: `url: "dns://m${i}.bench.test", record: A, expect: ["127.0.0.1"], dns_server: "${dns.address}"`,
        tls: `url: "https://localhost:${tlsPort}", days_before_expiry: 14`,
        heartbeat: 'grace_seconds: 60',
      }[kind];
      return `      - { id: ${i}, name: m${i}, interval_seconds: 60, probe_type: ${kind}, ${rest} }`;
    },
    close() {
      dns.close();
      tls.close();
      http.close();
      http.closeAllConnections();
    },
  };
}
type Targets = Awaited<ReturnType<typeof startTargets>>;

const CONFIG_HEAD = ['rate_limit: { per_minute: 10000000 }', 'companies:', '  - name: Bench', `    api_keys: ["${KEY}"]`];

async function oneProcess(dir: string, targets: Targets): Promise<number> {
  const lines = [...CONFIG_HEAD, '    custom_monitors:'];
  const counts: Record<Kind, number> = { ping: 0, keyword: 0, tcp: 0, dns: 0, tls: 0, heartbeat: 0 };
  for (let i = 1; i <= MONITORS; i++) {
    const kind = kindOf(i);
    counts[kind]++;
    lines.push(targets.monitor(i, kind));
  }
  const configPath = join(dir, 'statusbot.yml');
  writeFileSync(configPath, `${lines.join('\n')}\n`);
  const hitsBefore = targets.hits();

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
    for (const [what, value, met] of rows) console.log(`${what.padEnd(36)} ${value.padStart(26)}  ${met}`);
    console.log(`(target hits seen by the local server: ${targets.hits() - hitsBefore})`);

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
  }
}

const CLI = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'src', 'cli.js');

/** CPU seconds a process has used so far (Linux's /proc). */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the name), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function withAgents(dir: string, targets: Targets): Promise<number> {
  const lines = [...CONFIG_HEAD, `    regions: { quorum: 2 }`, '    custom_monitors:'];
  for (let i = 1, n = 0; n < AGENT_MONITORS; i++) {
    const kind = kindOf(i);
    if (kind === 'heartbeat') continue;
    lines.push(targets.monitor(i, kind));
    n++;
  }
  const configPath = join(dir, 'agents.yml');
  writeFileSync(configPath, `${lines.join('\n')}\n`);
  const dbPath = join(dir, 'agents.db');
  let server: Awaited<ReturnType<typeof startServingChild>> | undefined;
  const agents: ChildProcess[] = [];
  try {
    server = await startServingChild(dbPath, configPath);
    const regions = Array.from({ length: AGENTS }, (_, i) => `r${i + 1}`);
    for (const region of regions) {
      const token = execFileSync(process.execPath, [CLI, 'key', 'create', '--agent', '--region', region, '--company', 'Bench', '--db', dbPath], {
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
      const agent = spawn(process.execPath, [CLI, 'agent', '--server', `http://127.0.0.1:${server.port}`, '--token', token, '--region', region], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, LOG_LEVEL: 'error' },
      });
      agents.push(agent);
    }
    console.log(
      `\nprobing bench with agents: ${AGENT_MONITORS} monitors every 60 s (no heartbeats), ${AGENTS} agents (${regions.join(', ')}) and the server's own region, quorum 2; ${WARMUP} s warm-up, ${SECONDS} s measured`,
    );
    await new Promise((r) => setTimeout(r, WARMUP * 1000));
    const start = await server.mark();
    const agentStart = agents.map((a) => cpuSecondsOf(a.pid!));
    const t0 = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const end = await server.mark();
    const agentEnd = agents.map((a) => cpuSecondsOf(a.pid!));
    const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;

    // A result older than its interval and a half: the region fell behind.
    const db = new BetterSqlite3(dbPath, { readonly: true });
    const stale = db
      .prepare('select region, count(*) as n, sum(checked_at < ?) as old from monitor_regions group by region order by region')
      .all(Date.now() - 90_000) as { region: string; n: number; old: number }[];
    db.close();
    const serverCores = (end.cpuMicros - start.cpuMicros) / 1e6 / wallSeconds;
    const rows: [string, string, string][] = [
      ['server CPU (its own probes too)', `${serverCores.toFixed(3)} cores`, serverCores < TARGETS.cores ? 'yes' : 'NO'],
      ...agents.map((_, i): [string, string, string] => {
        const cores = (agentEnd[i]! - agentStart[i]!) / wallSeconds;
        return [`agent ${regions[i]} CPU`, `${cores.toFixed(3)} cores`, cores < TARGETS.cores ? 'yes' : 'NO'];
      }),
      ...[...regions, 'local'].map((region): [string, string, string] => {
        const row = stale.find((r) => r.region === region);
        const share = row ? row.old / AGENT_MONITORS : 1;
        const missing = AGENT_MONITORS - (row?.n ?? 0);
        return [
          `region ${region}: results older than 90 s`,
          `${(share * 100).toFixed(2)}% (${row?.old ?? 0}; ${missing} never)`,
          share < TARGETS.lateShare && missing === 0 ? 'yes' : 'NO',
        ];
      }),
    ];
    console.log();
    for (const [what, value, met] of rows) console.log(`${what.padEnd(36)} ${value.padStart(26)}  ${met}`);
    recordResult('probing-agents', { monitors: AGENT_MONITORS, agents: AGENTS, seconds: SECONDS, rows, date: new Date().toISOString() });
    return rows.every(([, , met]) => met !== 'NO') ? 0 : 1;
  } finally {
    for (const a of agents) a.kill('SIGTERM');
    await Promise.all(agents.map((a) => (a.exitCode === null ? new Promise((r) => a.once('exit', r)) : null)));
    await server?.stop();
  }
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-probe-bench-'));
  const targets = await startTargets(dir);
  try {
    const alone = MONITORS > 0 ? await oneProcess(dir, targets) : 0;
    const agents = AGENTS > 0 ? await withAgents(dir, targets) : 0;
    return alone || agents;
  } finally {
    targets.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
