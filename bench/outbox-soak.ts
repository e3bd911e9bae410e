/**
 * `npm run bench`: the outbox under load. BENCH_SOAK_ROWS (default 20,000)
 * webhook deliveries are queued through the API — incidents created on a
 * status page with BENCH_SOAK_SUBSCRIBERS (default 20) webhook subscribers,
 * by a server whose delivery is off — then two replica processes on the same
 * database deliver them to a local receiver, while GET /api/v2/incidents/:id
 * is timed against them (with undici's `request`: `fetch` adds its own
 * streams' work to every timing). Printed per engine: every row delivered, none twice
 * at once (the same Idempotency-Key overlapping in time), the drain rate and
 * the API's p99 meanwhile.
 *   BENCH_ENGINES       `sqlite,postgres` (default)
 *   BENCH_POSTGRES_URL  where the PostgreSQL run creates its database (default postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_CPU_PROF      a folder: each replica writes a CPU profile there (node --cpu-prof)
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { request } from 'undici';
import { loadConfig } from '../src/config/load-config.js';
import { silentLogger } from '../src/infrastructure/pino-logger.js';
import { startServer } from '../src/main.js';
import { postgresDatabase } from './postgres-database.js';

const ROWS = Number(process.env.BENCH_SOAK_ROWS ?? 20_000);
const SUBSCRIBERS = Number(process.env.BENCH_SOAK_SUBSCRIBERS ?? 20);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',');
const KEY = 'soak-key-1';
const TARGETS: Record<string, { rate: number }> = { SQLite: { rate: 500 }, PostgreSQL: { rate: 300 } };
const API_P99_MS = 10;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

const config = (hook: string) => `
public_url: http://status.test
rate_limit: { per_minute: 10000000 }
companies:
  - name: Soak
    plan: business
    api_keys: ["${KEY}"]
    custom_services:
      - { id: 1001, name: Soak API, urlname: soak-api }
    status_pages:
      - name: Soak status
        url: https://status.soak.example
        services: [soak-api]
        subscribers:
${Array.from({ length: SUBSCRIBERS }, (_, i) => `          - { webhook: "${hook}/hooks/${i}", secret: "whsec-0123456789abcdef" }`).join('\n')}
`;

// ---------------------------------------------------------------- receiver

/** What the receiver reports at the end of a drain. */
interface Received {
  /** Distinct Idempotency-Keys received. */
  delivered: number;
  /** Keys seen under way twice at the same time. */
  twiceAtOnce: number;
  /** Keys received more than once. */
  repeated: number;
  /** From the first delivery received to the last. */
  seconds: number;
}

/**
 * The webhooks' receiver, in a process of its own as a remote host would be:
 * in the timing process, its work would delay the timed requests' answers
 * and count as the API's latency.
 */
interface Receiver {
  url: string;
  /** Distinct keys received so far (reported every 50 ms). */
  received(): number;
  report(): Promise<Received>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const proc = fork(fileURLToPath(import.meta.url), ['receiver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let received = 0;
  proc.on('message', (m: { type: string; received?: number }) => {
    if (m.type === 'progress') received = m.received!;
  });
  const url = await new Promise<string>((ok, fail) => {
    proc.once('exit', (code) => fail(new Error(`the receiver exited before it was ready (${code})`)));
    proc.on('message', (m: { type: string; url?: string }) => m.type === 'ready' && ok(m.url!));
  });
  return {
    url,
    received: () => received,
    report: () =>
      new Promise((ok) => {
        const answer = (m: { type: string } & Received) => {
          if (m.type !== 'report') return;
          proc.off('message', answer);
          ok(m);
        };
        proc.on('message', answer);
        proc.send({ type: 'report' });
      }),
    close: () => stopChild(proc),
  };
}

async function receiver(): Promise<void> {
  const byKey = new Map<string, number>();
  const open = new Map<string, number>();
  const overlapping = new Set<string>();
  let first = 0;
  let last = 0;
  const server = createServer((req, res) => {
    const key = String(req.headers['idempotency-key']);
    const now = (open.get(key) ?? 0) + 1;
    open.set(key, now);
    if (now > 1) overlapping.add(key);
    req.resume();
    req.on('end', () => {
      byKey.set(key, (byKey.get(key) ?? 0) + 1);
      first ||= performance.now();
      last = performance.now();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    res.on('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  let told = 0;
  setInterval(() => {
    if (byKey.size === told) return;
    told = byKey.size;
    process.send?.({ type: 'progress', received: told });
  }, 50);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'report') {
      process.send?.({
        type: 'report',
        delivered: byKey.size,
        twiceAtOnce: overlapping.size,
        repeated: [...byKey.values()].filter((n) => n > 1).length,
        seconds: (last - first) / 1_000,
      } satisfies Received & { type: string });
    } else if (m.type === 'stop') {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

// ---------------------------------------------------------------- run

function startReplica(dbPath: string, configPath: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(fileURLToPath(import.meta.url), ['replica', dbPath, configPath], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [],
  });
  return new Promise((ok, fail) => {
    proc.once('exit', (code) => fail(new Error(`a replica exited before it was ready (${code})`)));
    proc.on('message', (m: { type: string; port: number }) => m.type === 'ready' && ok({ proc, port: m.port }));
  });
}

async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((ok) => proc.once('exit', ok));
  proc.send({ type: 'stop' });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const api = (port: number, method: string, path: string, body?: unknown) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Queues ROWS webhook deliveries the way users do: incidents created over the API, one row per subscriber each. */
async function queue(dbPath: string, configPath: string): Promise<string> {
  const server = await startServer({
    dbPath,
    port: 0,
    host: '127.0.0.1',
    config: loadConfig(configPath, process.env).config,
    logger: silentLogger,
    env: {},
    jobs: false,
    delivery: { enabled: false },
    notice: () => undefined,
  });
  try {
    const incidents = Math.ceil(ROWS / SUBSCRIBERS);
    let next = 0;
    let firstId = '';
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < incidents) {
          const n = next++;
          const response = await api(server.port, 'POST', '/api/v2/incidents', { service_id: 1001, title: `Soak ${n}` });
          if (response.status !== 201) throw new Error(`POST /api/v2/incidents: HTTP ${response.status} ${await response.text()}`);
          const { data } = (await response.json()) as { data: { id: string } };
          firstId ||= data.id;
        }
      }),
    );
    return firstId;
  } finally {
    await server.close();
  }
}

async function outboxStates(dbPath: string): Promise<Record<string, number>> {
  const sqlText = 'select state, count(*) as n from outbox group by state';
  let rows: { state: string; n: number | string }[];
  if (dbPath.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: dbPath });
    await client.connect();
    rows = (await client.query(sqlText).finally(() => client.end())).rows;
  } else {
    const db = new BetterSqlite3(dbPath, { readonly: true });
    rows = db.prepare(sqlText).all() as typeof rows;
    db.close();
  }
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

interface Result {
  engine: string;
  queued: number;
  delivered: number;
  twiceAtOnce: number;
  repeated: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  states: Record<string, number>;
}

async function soak(engine: string, dbPath: string, dir: string): Promise<Result> {
  const receiver = await startReceiver();
  const configPath = join(dir, `${engine}.yml`);
  writeFileSync(configPath, config(receiver.url));
  const replicas: ChildProcess[] = [];
  try {
    const incidentId = await queue(dbPath, configPath);
    const queued = (await outboxStates(dbPath)).pending ?? 0;
    const started = await Promise.all([startReplica(dbPath, configPath), startReplica(dbPath, configPath)]);
    replicas.push(...started.map((s) => s.proc));
    const latencies: number[] = [];
    const deadline = performance.now() + DRAIN_TIMEOUT_MS;
    let turn = 0;
    while (receiver.received() < queued && performance.now() < deadline) {
      const port = started[turn++ % 2]!.port;
      const t = performance.now();
      const response = await request(`http://127.0.0.1:${port}/api/v2/incidents/${incidentId}`, { headers: { authorization: `Bearer ${KEY}` } });
      await response.body.arrayBuffer();
      latencies.push(performance.now() - t);
      if (response.statusCode !== 200) throw new Error(`GET /api/v2/incidents/:id: HTTP ${response.statusCode}`);
      // A client every 10 ms: the drain, not the probe, keeps the CPUs busy.
      await new Promise((ok) => setTimeout(ok, 10));
    }
    // The last confirmations are marked after the receiver answered.
    await new Promise((ok) => setTimeout(ok, 1_000));
    const states = await outboxStates(dbPath);
    latencies.sort((a, b) => a - b);
    const { delivered, twiceAtOnce, repeated, seconds } = await receiver.report();
    return {
      engine,
      queued,
      delivered,
      twiceAtOnce,
      repeated,
      seconds,
      rate: delivered / Math.max(seconds, 0.001),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      states,
    };
  } finally {
    await Promise.all(replicas.map(stopChild));
    await receiver.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-bench-soak-'));
  const results: Result[] = [];
  try {
    if (ENGINES.includes('sqlite')) results.push(await soak('SQLite', join(dir, 'soak.db'), dir));
    if (ENGINES.includes('postgres')) {
      const database = await postgresDatabase('statusbot_soak');
      if (database) {
        try {
          results.push(await soak('PostgreSQL', database.url, dir));
        } finally {
          await database.drop();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`outbox soak: ${ROWS.toLocaleString('en')} webhook deliveries to ${SUBSCRIBERS} subscribers, two replicas`);
  const header = [
    'engine',
    'queued',
    'delivered',
    'twice at once',
    'sent again',
    'left pending',
    'drain s',
    'rows/s',
    'target rows/s',
    'API p50 ms',
    'API p99 ms',
  ];
  const lines = results.map((r) => [
    r.engine,
    String(r.queued),
    String(r.delivered),
    String(r.twiceAtOnce),
    String(r.repeated),
    String(r.states.pending ?? 0),
    r.seconds.toFixed(1),
    r.rate.toFixed(0),
    `≥ ${TARGETS[r.engine]?.rate ?? '?'}`,
    r.p50.toFixed(2),
    r.p99.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines]) console.log(line.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  for (const r of results) {
    const met = r.delivered === r.queued && r.twiceAtOnce === 0 && r.rate >= (TARGETS[r.engine]?.rate ?? 0) && r.p99 < API_P99_MS;
    console.log(`${r.engine}: ${met ? 'target met' : 'target NOT met'} (all delivered, none twice at once, rate, API p99 < ${API_P99_MS} ms)`);
  }
}

// ---------------------------------------------------------------- replica child

async function replica(): Promise<void> {
  const [dbPath, configPath] = process.argv.slice(3) as [string, string];
  const server = await startServer({
    dbPath,
    port: 0,
    host: '127.0.0.1',
    config: loadConfig(configPath, process.env).config,
    logger: silentLogger,
    env: {},
    jobs: false,
    delivery: { enabled: true, ...(process.env.BENCH_SOAK_CONCURRENCY ? { concurrency: Number(process.env.BENCH_SOAK_CONCURRENCY) } : {}) },
    notice: () => undefined,
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stop') void server.close().then(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready', port: server.port });
}

// Forked with `replica`: one of the two servers; with `receiver`, the webhooks' receiver; otherwise the run itself.
if (process.argv[2] === 'replica') await replica();
else if (process.argv[2] === 'receiver') await receiver();
else await main();
