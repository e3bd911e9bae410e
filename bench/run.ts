/**
 * `npm run bench`: statusbot's /api/v2 against a bare node:http server, on SQLite
 * and on PostgreSQL (one replica, and two with the load split across both).
 *
 * The statusbot server (bench/server-entry.ts, on a fresh temp DB) and the bare
 * server (bench/bare-server.ts) each run in their own child process; autocannon
 * drives them from this process. For every endpoint the bare server answers a
 * fixed JSON body of the same byte size as statusbot's real response, and both
 * are measured in the same run, so the ratio compares like with like.
 *
 * A process here keeps one speed for its whole life, and identical processes
 * differ by up to 40%: one statusbot process against one bare process is a
 * draw of two speeds. Each endpoint is therefore measured in BENCH_ROUNDS
 * rounds, each with a fresh statusbot (its replicas) and a fresh bare server,
 * the side that goes first alternating; each side's seconds of every round
 * are pooled (requests over seconds, CPU over requests, every latency).
 *
 * Environment:
 *   BENCH_SECONDS         measured seconds per endpoint and side, split over the rounds (default 10)
 *   BENCH_ROUNDS          rounds per endpoint, each with fresh statusbot and bare processes (default 3)
 *   BENCH_WARMUP_SECONDS  warm-up seconds before each measured run (default 2)
 *   BENCH_CONNECTIONS     concurrent connections (default 10)
 *   BENCH_CPU_PROF        a directory: run the statusbot child with --cpu-prof into it
 *   BENCH_OBSERVING_ROUNDS  rounds measuring the cost of observing, each in a fresh process (default 5)
 *   BENCH_OBSERVING_SEGMENTS  seconds of each such round, observing on and off in turn (default 32)
 *   BENCH_OBSERVING_AA=1  the switch is ignored (observing stays on): what the method measures when there is nothing to measure
 *   BENCH_VERBOSE=1       print each measured run's req/s and CPU per request
 *   BENCH_ONLY            run only the endpoints whose label contains this text (e.g. "POST")
 *   BENCH_ENGINES         `sqlite,postgres` (default): also PostgreSQL, with one replica and with two
 *   BENCH_POSTGRES_URL    the server the PostgreSQL runs create their databases on (default postgres://postgres@127.0.0.1:5432/test)
 *
 * With one replica, `GET /api/v2/incidents/:id` and `POST /api/v2/incidents`
 * are also measured with logs and metrics turned off and on
 * again every second in the same process under one unbroken load (on, off,
 * off, on, …), in a fresh process each round: what observing costs, against
 * the target of under 10%. Identical processes here differ by up to 40% for
 * their whole life, and one process's speed drifts from one 10 s run to the
 * next, so the two sides are compared within one process, second by second;
 * each side's seconds of every round are pooled (each second weighs alike,
 * whichever process it was measured in), each round's own cost shown beside
 * the pooled one. The cost is judged on the CPU time
 * the server spends per request, which on a shared 2-core machine holds
 * steadier than req/s (both are shown).
 * The measured servers log every request as JSON lines into a file, as in
 * production.
 */
import { fork } from 'node:child_process';
import { request } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { RESULTS_FILE, recordResult } from './results.js';
import type { ChildReply, ParentMessage } from './ipc.js';
import { postgresDatabase } from './postgres-database.js';

const SECONDS = positive('BENCH_SECONDS', 10);
const ROUNDS = positive('BENCH_ROUNDS', 3);
/** Measured seconds of one side in one round: BENCH_SECONDS split over the rounds. */
const ROUND_SECONDS = SECONDS / ROUNDS;
const WARMUP_SECONDS = positive('BENCH_WARMUP_SECONDS', 2, true);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 10);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : null;
const ONLY = process.env.BENCH_ONLY ?? '';
const OBSERVING_ROUNDS = positive('BENCH_OBSERVING_ROUNDS', 5);
/** Seconds on (or off) at a time while observing is turned on and off under one load; 8 × 4 of them a round. */
const OBSERVING_SEGMENT_SECONDS = 1;
const OBSERVING_SEGMENTS = positive('BENCH_OBSERVING_SEGMENTS', 32);
const VERBOSE = process.env.BENCH_VERBOSE === '1';

const API_KEY = 'bench-key-0123456789';
const BOARD_ID = '5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01';
const SERVICE_ID = 1001;
/**
 * Creates go round the company's services, as a team's incidents do: PostgreSQL
 * writes the incidents of one service one after the other (each moves that
 * service's status and tells of it), those of different services side by side.
 */
const CREATE_SERVICES = Array.from({ length: 16 }, (_, i) => SERVICE_ID + 2 * i);
const CREATE_BODIES = CREATE_SERVICES.map((id) => JSON.stringify({ service_id: id, title: 'bench', description: 'x' }));

const TARGETS = {
  readRatio: 0.5,
  createRps: 2000,
  postgresCreateRps: 1500,
  createP99Ms: 25,
  page: { ratio: 0.7, p99Ms: 5 },
  /** Logs and metrics on may cost at most this share of req/s against them off. */
  observingCost: 0.1,
};
/** The endpoints measured with observing off too. */
const OBSERVED_ENDPOINTS = ['GET /api/v2/incidents/:id', 'POST /api/v2/incidents'];
/** The status page of the bench company (its slug: the name in kebab-case). */
const PAGE_SLUG = 'bench-status';
/** Services on the public page (the rest of the company's are on an internal page with the same subscribers). */
const PAGE_SERVICES = 6;
/** `sqlite`, or `sqlite,postgres` (the default): PostgreSQL with one replica and with two, load split across both. */
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',');

const here = fileURLToPath(new URL('.', import.meta.url));

/** An incident with a few updates (for GET /incidents/:id), and one still open on another service (for the status page); the first's id. */
async function seed(first: number): Promise<string> {
  // An incident with a few updates, for GET /incidents/:id.
  const created = await api(first, 'POST', '/incidents', {
    service_id: SERVICE_ID,
    title: 'Elevated error rates on checkout',
    description: 'We are seeing elevated 5xx rates on the checkout API.',
    status: 'major',
  });
  const incidentId: string = created.data.id;
  for (const [stage, description] of [
    ['identified', 'A bad deploy of the payments adapter is the cause; rolling back.'],
    ['monitoring', 'The rollback is complete; error rates are back to normal. We keep watching.'],
    ['resolved', 'Resolved. A post-mortem follows within 48 hours.'],
  ] as const) {
    await api(first, 'PATCH', `/incidents/${incidentId}`, { resolution_stage: stage, description });
  }
  // And one still open on another service, for the status page.
  const open = await api(first, 'POST', '/incidents', {
    service_id: CREATE_SERVICES[1],
    title: 'Slow email delivery',
    description: 'Outgoing mail is delayed by up to 10 minutes.',
    status: 'minor',
  });
  await api(first, 'PATCH', `/incidents/${open.data.id}`, { resolution_stage: 'identified', description: 'A provider throttles us; we are moving traffic.' });
  return incidentId;
}

function positive(name: string, fallback: number, zeroOk = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zeroOk)) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return n;
}

const CONFIG = `
public_url: http://status.bench
rate_limit: { per_minute: 10000000 }
services:
  - { urlname: acme-cloud, name: Acme Cloud, status_page_url: "https://status.acme-cloud.example" }
  - { urlname: big-cdn, name: Big CDN, status_page_url: "https://status.big-cdn.example" }
  - { urlname: pay-gateway, name: Pay Gateway }
  - { urlname: mail-relay, name: Mail Relay }
  - { urlname: dns-host, name: DNS Host }
companies:
  - name: Bench
    plan: business
    api_keys: ["${API_KEY}"]
    monitored_services: [demo-service-minor, acme-cloud]
    custom_services:
      - { id: ${SERVICE_ID}, name: Bench API, urlname: bench-api }
      - { id: 1002, name: Bench Web, urlname: bench-web }
${CREATE_SERVICES.slice(1)
  .map((id) => `      - { id: ${id}, name: Bench service ${id}, urlname: bench-${id} }`)
  .join('\n')}
    boards:
      - id: ${BOARD_ID}
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service, tags: [core, eu] }
          - { urlname: demo-service-ok, tags: [core] }
          - { urlname: demo-service-minor, tags: [edge, us, eu] }
          - { urlname: acme-cloud, tags: [hosting, core] }
          - { urlname: big-cdn, tags: [edge, cdn] }
          - { urlname: pay-gateway, tags: [payments] }
          - { urlname: mail-relay, tags: [email, ops] }
          - { urlname: dns-host, tags: [dns, core, ops] }
    status_pages:
      - name: Bench status
        services: [bench-api, ${CREATE_SERVICES.slice(1, PAGE_SERVICES)
          .map((id) => `bench-${id}`)
          .join(', ')}]
        third_party: [acme-cloud, big-cdn]
        subscribers:
          - { webhook: "https://hooks.bench.example/statusbot", secret: "0123456789abcdef0123" }
          - { webhook: "https://oncall.bench.example/hook", secret: "fedcba9876543210fedc" }
      - name: Bench internal
        services: [${CREATE_SERVICES.slice(PAGE_SERVICES)
          .map((id) => `bench-${id}`)
          .join(', ')}]
        subscribers:
          - { webhook: "https://hooks.bench.example/statusbot", secret: "0123456789abcdef0123" }
          - { webhook: "https://oncall.bench.example/hook", secret: "fedcba9876543210fedc" }
`;

// ---------------------------------------------------------------- children

interface Child {
  name: string;
  proc: ChildProcess;
  port: number;
}

const children: Child[] = [];

function startChild(name: string, script: string, args: string[], execArgv: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Child> {
  const proc = fork(resolve(here, script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, env: { ...process.env, ...env } });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within 30 s`)), 30_000);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
    });
    proc.on('message', (m: ChildReply) => {
      if (m.type !== 'ready') return;
      clearTimeout(timer);
      const child = { name, proc, port: m.port };
      children.push(child);
      ok(child);
    });
  });
}

function ask<T extends ChildReply['type']>(child: Child, message: ParentMessage, answer: T): Promise<Extract<ChildReply, { type: T }>> {
  return new Promise((ok, fail) => {
    const onMessage = (m: ChildReply) => {
      if (m.type !== answer) return;
      child.proc.off('message', onMessage);
      ok(m as Extract<ChildReply, { type: T }>);
    };
    child.proc.on('message', onMessage);
    child.proc.send(message, (error) => error && fail(error));
  });
}

async function stopChild(child: Child): Promise<void> {
  const { proc } = child;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((ok) => proc.once('exit', () => ok()));
  if (proc.connected) proc.send({ type: 'stop' } satisfies ParentMessage);
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- load

interface Endpoint {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Bodies sent in turn (the first is `body`). */
  bodies?: readonly string[];
  status: number;
  /** Headers of its own (e.g. Accept-Encoding); the bare server then sends statusbot's very bytes and content headers. */
  headers?: Record<string, string>;
  /** A read's target: this share of the bare server's req/s (default TARGETS.readRatio), and a p99 bound where one is set. */
  target?: { ratio: number; p99Ms?: number };
}

interface Run {
  rps: number;
  /** CPU time the measured servers spent per answered request, in µs (steadier than req/s on a shared machine). */
  cpuUs: number;
  /** CPU time PostgreSQL's processes spent per answered request, in µs, when it runs on this machine. */
  dbCpuUs: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

const headersFor = (e: Endpoint): Record<string, string> => ({
  authorization: `Bearer ${API_KEY}`,
  ...(e.body ? { 'content-type': 'application/json' } : {}),
  ...e.headers,
});

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** autocannon loading one port with `e`'s requests, its bodies in turn (counted in `bodies`, which several ports may share). */
function cannon(port: number, e: Endpoint, connections: number, seconds: number, bodies = { sent: 0 }) {
  return autocannon({
    url: `http://127.0.0.1:${port}${e.path}`,
    method: e.method,
    headers: headersFor(e),
    ...(e.body ? { body: e.body } : {}),
    ...(e.bodies ? { requests: [{ setupRequest: (req: object) => ({ ...req, body: e.bodies![bodies.sent++ % e.bodies!.length] }) }] } : {}),
    connections,
    duration: seconds,
    timeout: 10,
  });
}

/**
 * One autocannon run, its connections split across the ports (replicas behind
 * a balancer); latencies are kept at full (sub-ms) resolution, for 2xx
 * responses only. Its sums (CPU left at 0, for the caller), and what failed.
 */
async function load(ports: readonly number[], e: Endpoint, seconds: number): Promise<Side & { failed: string | null }> {
  const latencies: number[] = [];
  const bodies = { sent: 0 };
  const started = performance.now();
  const results = await Promise.all(
    ports.map((port) => {
      const instance = cannon(port, e, Math.max(1, Math.ceil(CONNECTIONS / ports.length)), seconds, bodies);
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        if (status >= 200 && status < 300) latencies.push(ms);
      });
      return instance;
    }),
  );
  const ms = performance.now() - started;
  const sum = (k: '2xx' | 'non2xx' | 'errors' | 'timeouts') => results.reduce((n, r) => n + r[k], 0);
  const failed = sum('non2xx') + sum('errors') + sum('timeouts') > 0 ? `${sum('non2xx')} non-2xx, ${sum('errors')} errors, ${sum('timeouts')} timeouts` : null;
  return { ms, cpu: 0, db: 0, answered: sum('2xx') + sum('non2xx'), latencies, failed };
}

/** One side (observing on, or off) of the seconds measured while observing is turned on and off: sums, so that rounds pool. */
interface Side {
  ms: number;
  cpu: number;
  db: number;
  answered: number;
  latencies: number[];
}

const side = (): Side => ({ ms: 0, cpu: 0, db: 0, answered: 0, latencies: [] });

/** Both sides of several rounds together: each second counts alike, whichever process it was measured in. */
function pooled(sides: readonly Side[]): Side {
  const all = side();
  for (const s of sides) {
    all.ms += s.ms;
    all.cpu += s.cpu;
    all.db += s.db;
    all.answered += s.answered;
    for (const ms of s.latencies) all.latencies.push(ms);
  }
  return all;
}

function runOfSide(s: Side): Run {
  const sorted = Float64Array.from(s.latencies).sort();
  return {
    rps: s.latencies.length / (s.ms / 1000),
    cpuUs: s.cpu / s.answered,
    dbCpuUs: s.db / s.answered,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    requests: s.latencies.length,
    non2xx: s.answered - s.latencies.length,
    errors: 0,
    timeouts: 0,
  };
}

/**
 * One process's server under one unbroken load, with logs and
 * metrics turned on and off every OBSERVING_SEGMENT_SECONDS in the order
 * on, off, off, on, …: the CPU time and the answers of each side, summed over
 * its segments. A warm-up runs both sides first.
 */
async function alternate(server: Child, e: Endpoint, database?: 'postgres'): Promise<{ on: Side; off: Side }> {
  const sides = { on: side(), off: side() };
  let counting: Side | null = null;
  const segments = OBSERVING_SEGMENTS;
  // Longer than needed: stopped once the last segment ends.
  const instance = cannon(server.port, e, CONNECTIONS, WARMUP_SECONDS + segments * OBSERVING_SEGMENT_SECONDS + 60);
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (!counting) return;
    counting.answered++;
    if (status >= 200 && status < 300) counting.latencies.push(ms);
  });
  const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
  const turn = (on: boolean) => ask(server, { type: 'observing', on }, 'observing');
  for (const on of [true, false]) {
    await turn(on);
    await sleep((WARMUP_SECONDS * 1000) / 2);
  }
  for (let i = 0; i < segments; i++) {
    const on = i % 4 === 0 || i % 4 === 3;
    await turn(on);
    const into = on ? sides.on : sides.off;
    const cpu = (await ask(server, { type: 'cpu' }, 'cpu')).micros;
    const db = database ? postgresCpu() : null;
    const started = performance.now();
    counting = into;
    await sleep(OBSERVING_SEGMENT_SECONDS * 1000);
    counting = null;
    into.ms += performance.now() - started;
    into.cpu += (await ask(server, { type: 'cpu' }, 'cpu')).micros - cpu;
    const dbAfter = db === null ? null : postgresCpu();
    into.db += db === null || dbAfter === null ? NaN : dbAfter - db;
  }
  await turn(true);
  instance.stop();
  const result = await instance;
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`${e.label} with observing turned on and off: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  if (VERBOSE) {
    for (const [name, s] of Object.entries(sides)) {
      const r = runOfSide(s);
      console.error(`\n  ${server.name} (observing ${name}, ${segments / 2} s): ${f(r.rps)} req/s, ${f(r.cpuUs, 1)} µs CPU a request`);
    }
  }
  return sides;
}

/** CPU time the servers have used so far, in µs. */
async function cpuOf(servers: readonly Child[]): Promise<number> {
  const used = await Promise.all(servers.map((s) => ask(s, { type: 'cpu' }, 'cpu')));
  return used.reduce((n, u) => n + u.micros, 0);
}

/**
 * CPU time all `postgres` processes of this machine have used so far, in µs
 * (from /proc; null elsewhere): what the database spends on the requests,
 * when it runs here. A backend whose connection closed is gone from /proc;
 * its time is counted in its parent's (the postmaster's) time of children.
 */
function postgresCpu(): number | null {
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]); // utime, stime, cutime, cstime
    }
    return (ticks / CLOCK_TICKS) * 1e6;
  } catch {
    return null;
  }
}
/** Linux's USER_HZ, the unit of /proc's CPU times. */
const CLOCK_TICKS = 100;

/** What observing costs: both sides pooled over every round (each a fresh process), and each round's own cost (CPU per request). */
interface Observing {
  on: Run;
  off: Run;
  rounds: number;
  costs: number[];
}

/** One measured run of `servers` after a warm-up: its sums, which pool with the other rounds'. */
async function measure(servers: readonly Child[], e: Endpoint, database?: 'postgres'): Promise<Side> {
  const ports = servers.map((s) => s.port);
  if (WARMUP_SECONDS > 0) await load(ports, e, WARMUP_SECONDS);
  const batchesBefore = VERBOSE && e.method === 'POST' ? await writerBatches(ports) : null;
  const before = await cpuOf(servers);
  const dbBefore = database ? postgresCpu() : null;
  const run = await load(ports, e, ROUND_SECONDS);
  const dbAfter = dbBefore === null ? null : postgresCpu();
  if (run.failed) throw new Error(`${e.label} on ${servers.map((s) => s.name).join(', ')}: ${run.failed}`);
  const part: Side = {
    ...run,
    cpu: (await cpuOf(servers)) - before,
    db: dbBefore !== null && dbAfter !== null ? dbAfter - dbBefore : NaN,
  };
  if (VERBOSE) {
    const out = runOfSide(part);
    const db = Number.isFinite(out.dbCpuUs) ? `, PostgreSQL ${f(out.dbCpuUs, 1)} µs` : '';
    const after = batchesBefore ? await writerBatches(ports) : null;
    const batches =
      batchesBefore && after && after.count > batchesBefore.count
        ? `, ${f(after.count - batchesBefore.count)} transactions of ${f((after.sum - batchesBefore.sum) / (after.count - batchesBefore.count), 1)} units`
        : '';
    console.error(`\n  ${servers.map((s) => s.name).join(', ')}: ${f(out.rps)} req/s, ${f(out.cpuUs, 1)} µs CPU a request${db}${batches}`);
  }
  return part;
}

/** The writers' transactions so far and the units they carried, from the servers' /metrics (zero where observing is off). */
async function writerBatches(ports: readonly number[]): Promise<{ count: number; sum: number }> {
  let count = 0;
  let sum = 0;
  for (const port of ports) {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => (r.ok ? r.text() : ''));
    count += Number(/^statusbot_writer_batch_size_count (\S+)$/m.exec(text)?.[1] ?? 0);
    sum += Number(/^statusbot_writer_batch_size_sum (\S+)$/m.exec(text)?.[1] ?? 0);
  }
  return { count, sum };
}

/** Status and byte size of one real response, which the bare server then imitates. */
async function probe(port: number, e: Endpoint): Promise<{ status: number; bytes: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${e.path}`, {
    method: e.method,
    headers: { ...headersFor(e), connection: 'close' },
    ...(e.body ? { body: e.body } : {}),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes: buf.length, text: buf.toString('utf8') };
}

/** A GET's status, bytes as sent (not decoded, unlike fetch) and content headers. */
function probeRaw(port: number, e: Endpoint): Promise<{ status: number; body: Buffer; headers: Record<string, string> }> {
  const CONTENT_HEADERS = ['content-type', 'content-encoding', 'vary', 'etag', 'cache-control', 'last-modified'];
  return new Promise((ok, fail) => {
    const req = request(`http://127.0.0.1:${port}${e.path}`, { headers: { ...headersFor(e), connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const name of CONTENT_HEADERS) {
          const value = res.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        ok({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers });
      });
    });
    req.on('error', fail);
    req.end();
  });
}

async function api(port: number, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`seeding: ${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Share of all CPUs busy over `ms` (Linux /proc/stat); null elsewhere. Other load skews every figure. */
async function cpuBusy(ms: number): Promise<number | null> {
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
      const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
      return { idle, total: fields.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const a = read();
  await new Promise((ok) => setTimeout(ok, ms));
  const b = read();
  if (!a || !b || b.total === a.total) return null;
  return 1 - (b.idle - a.idle) / (b.total - a.total);
}

// ---------------------------------------------------------------- report

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-');

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

// ---------------------------------------------------------------- main

interface EngineRun {
  label: string;
  /** The database the replicas share: a SQLite file or a PostgreSQL URL. */
  db: string;
  replicas: number;
  createRps: number;
  drop?: () => Promise<void>;
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-bench-'));
  const engines: EngineRun[] = [{ label: 'SQLite', db: join(dir, 'statusbot.db'), replicas: 1, createRps: TARGETS.createRps }];
  const cleanup = async () => {
    await Promise.allSettled(children.map(stopChild));
    for (const e of engines) await e.drop?.().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping`);
    void cleanup().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const configPath = join(dir, 'statusbot.yml');
    writeFileSync(configPath, CONFIG);
    const execArgv: string[] = [];
    if (CPU_PROF_DIR) {
      mkdirSync(CPU_PROF_DIR, { recursive: true });
      execArgv.push('--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`);
    }
    if (ENGINES.includes('postgres')) {
      for (const replicas of [1, 2]) {
        const database = await postgresDatabase('statusbot_bench');
        if (!database) break;
        engines.push({
          label: replicas === 1 ? 'PostgreSQL' : `PostgreSQL, ${replicas} replicas`,
          db: database.url,
          replicas,
          createRps: TARGETS.postgresCreateRps,
          drop: () => database.drop(),
        });
      }
    }
    let bare = await startChild('bare', 'bare-server.js', []);

    const busyBefore = await cpuBusy(1000);
    console.log(
      `statusbot bench: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), node ${process.version}, ` +
        `${CONNECTIONS} connections, ${ROUNDS} rounds of fresh processes, each ${WARMUP_SECONDS} s warm-up + ${f(ROUND_SECONDS, 1)} s per side; ${engines.map((e) => e.label).join(' · ')}`,
    );
    if (busyBefore !== null && busyBefore > 0.1) {
      console.log(`WARNING: other processes kept ${f(busyBefore * 100)}% of the CPUs busy before the start; the figures will be low and noisy`);
    }
    console.log();

    const results = [];
    const targets = [];
    for (const engine of engines) {
      // One replica after the other: each applies the config at start, idempotently.
      const startReplica = (i: number) => startChild(`statusbot ${engine.label} #${i + 1}`, 'server-entry.js', [engine.db, configPath], execArgv);
      const replicas: Child[] = [];
      for (let i = 0; i < engine.replicas; i++) replicas.push(await startReplica(i));
      const incidentId = await seed(replicas[0]!.port);
      const onPostgres = engine.db.startsWith('postgres') ? ('postgres' as const) : undefined;
      const all: Endpoint[] = [
        { label: 'GET /api/v2/incidents/:id', method: 'GET', path: `/api/v2/incidents/${incidentId}`, status: 200 },
        { label: 'GET /api/v2/boards/:id', method: 'GET', path: `/api/v2/boards/${BOARD_ID}`, status: 200 },
        { label: 'GET /status/{slug}', method: 'GET', path: `/status/${PAGE_SLUG}`, status: 200, target: TARGETS.page },
        {
          label: 'GET /status/{slug} (gzip)',
          method: 'GET',
          path: `/status/${PAGE_SLUG}`,
          headers: { 'accept-encoding': 'gzip' },
          status: 200,
          target: TARGETS.page,
        },
        { label: 'GET /status/{slug}/api/v2/summary.json', method: 'GET', path: `/status/${PAGE_SLUG}/api/v2/summary.json`, status: 200, target: TARGETS.page },
        { label: 'POST /api/v2/incidents', method: 'POST', path: '/api/v2/incidents', body: CREATE_BODIES[0]!, bodies: CREATE_BODIES, status: 201 },
      ];
      const endpoints = all.filter((e) => e.label.includes(ONLY));
      if (endpoints.length === 0) throw new Error(`BENCH_ONLY="${ONLY}" matches no endpoint`);

      const engineResults = [];
      for (const e of endpoints) {
        const real = await probe(replicas[0]!.port, e);
        if (real.status !== e.status) throw new Error(`${e.label} answered ${real.status}, not ${e.status}: ${real.text}`);
        // An endpoint with headers of its own is compared with the bare server sending statusbot's very bytes (compressed).
        const sent = e.headers ? await probeRaw(replicas[0]!.port, e) : null;
        if (sent && e.headers?.['accept-encoding'] && !sent.headers['content-encoding']) throw new Error(`${e.label} was answered uncompressed`);
        const bodyBytes = sent?.body.length ?? real.bytes;
        process.stdout.write(
          `${engine.label}: ${e.label} (${bodyBytes} B body${sent?.headers['content-encoding'] ? `, ${sent.headers['content-encoding']}` : ''}):`,
        );
        // The bare server answers with statusbot's very bytes and headers, or a body of the same size.
        const imitate = (server: Child) =>
          sent
            ? ask(server, { type: 'raw', status: sent.status, body: sent.body.toString('base64'), headers: sent.headers }, 'body-set')
            : ask(server, { type: 'body', status: real.status, bytes: real.bytes }, 'body-set');
        await imitate(bare);
        const sbParts: Side[] = [];
        const bareParts: Side[] = [];
        let peakRssKb = 0;
        for (let round = 1; round <= ROUNDS; round++) {
          if (round > 1) {
            process.stdout.write(` round ${round}:`);
            peakRssKb = Math.max(peakRssKb, (await ask(replicas[0]!, { type: 'rss' }, 'rss')).maxRssKb);
            for (const r of replicas) await stopChild(r);
            for (let i = 0; i < replicas.length; i++) replicas[i] = await startReplica(i);
            await stopChild(bare);
            bare = await startChild('bare', 'bare-server.js', []);
            await imitate(bare);
          }
          // The side that goes first alternates, so that neither always meets the machine as the other left it.
          for (const side of round % 2 === 1 ? (['statusbot', 'bare'] as const) : (['bare', 'statusbot'] as const)) {
            process.stdout.write(` ${side}…`);
            if (side === 'statusbot') sbParts.push(await measure(replicas, e, onPostgres));
            else bareParts.push(await measure([bare], e));
          }
        }
        const sb = runOfSide(pooled(sbParts));
        const base = runOfSide(pooled(bareParts));
        peakRssKb = Math.max(peakRssKb, (await ask(replicas[0]!, { type: 'rss' }, 'rss')).maxRssKb);
        // What observing costs, with one replica: turned off and on again every second in the same process under one
        // unbroken load (on, off, off, on, …), so that the machine's drift weighs on both alike; identical processes
        // differed here by up to 40% for their whole life, so the two sides are never compared across processes. A fresh
        // process each round; the seconds of every round are pooled, side by side (a round alone moved ±5 points with
        // nothing to measure, and single rounds of the same cost from 4% to 24%).
        let observing: Observing | null = null;
        if (engine.replicas === 1 && OBSERVED_ENDPOINTS.includes(e.label)) {
          const rounds: { on: Side; off: Side; cost: number }[] = [];
          for (let round = 1; round <= OBSERVING_ROUNDS; round++) {
            process.stdout.write(round === 1 ? ' observing on and off…' : ` round ${round}…`);
            if (round > 1) {
              await stopChild(replicas[0]!);
              replicas[0] = await startReplica(0);
            }
            const sides = await alternate(replicas[0]!, e, onPostgres);
            rounds.push({ ...sides, cost: runOfSide(sides.on).cpuUs / runOfSide(sides.off).cpuUs - 1 });
          }
          observing = {
            on: runOfSide(pooled(rounds.map((r) => r.on))),
            off: runOfSide(pooled(rounds.map((r) => r.off))),
            rounds: rounds.length,
            costs: rounds.map((r) => r.cost),
          };
        }
        console.log(' done');
        engineResults.push({
          engine: engine.label,
          replicas: engine.replicas,
          endpoint: e.label,
          bodyBytes,
          statusbot: sb,
          bare: base,
          ratio: sb.rps / base.rps,
          statusbotPeakRssMb: peakRssKb / 1024,
          observing,
        });
      }
      for (const r of replicas) await stopChild(r);
      results.push(...engineResults);

      const reads = engineResults.filter((r) => r.endpoint.startsWith('GET'));
      const create = engineResults.find((r) => r.endpoint.startsWith('POST'));
      targets.push(
        ...reads.flatMap((r) => {
          const target = endpoints.find((e) => e.label === r.endpoint)?.target ?? { ratio: TARGETS.readRatio };
          return [
            {
              target: `${engine.label}: ${r.endpoint} ≥ ${target.ratio * 100}% of bare req/s`,
              measured: `${f(r.ratio * 100, 1)}%`,
              met: r.ratio >= target.ratio,
            },
            ...(target.p99Ms === undefined
              ? []
              : [
                  {
                    target: `${engine.label}: ${r.endpoint} p99 < ${target.p99Ms} ms`,
                    measured: `${f(r.statusbot.p99, 2)} ms`,
                    met: r.statusbot.p99 < target.p99Ms,
                  },
                ]),
          ];
        }),
        ...engineResults.flatMap((r) =>
          r.observing
            ? [
                {
                  target: `${engine.label}: ${r.endpoint} with logs and metrics < ${TARGETS.observingCost * 100}% more CPU per request than without`,
                  measured: `${f((r.observing.on.cpuUs / r.observing.off.cpuUs - 1) * 100, 1)}% (req/s ${f((1 - r.observing.on.rps / r.observing.off.rps) * 100, 1)}% lower)`,
                  met: r.observing.on.cpuUs <= r.observing.off.cpuUs * (1 + TARGETS.observingCost),
                },
              ]
            : [],
        ),
        ...(create
          ? [
              {
                target: `${engine.label}: POST /api/v2/incidents ≥ ${f(engine.createRps)} req/s`,
                measured: `${f(create.statusbot.rps)} req/s`,
                met: create.statusbot.rps >= engine.createRps,
              },
              {
                target: `${engine.label}: POST /api/v2/incidents p99 < ${TARGETS.createP99Ms} ms`,
                measured: `${f(create.statusbot.p99, 2)} ms`,
                met: create.statusbot.p99 < TARGETS.createP99Ms,
              },
            ]
          : []),
      );
    }

    const bareRss = await ask(bare, { type: 'rss' }, 'rss');
    const peakRssMb = Math.max(...results.map((r) => r.statusbotPeakRssMb));
    console.log(
      '\n' +
        table([
          [
            'engine',
            'endpoint',
            'bytes',
            'req/s',
            'p50 ms',
            'p99 ms',
            'cpu µs/req',
            'PG cpu µs/req',
            'bare req/s',
            'bare p50',
            'bare p99',
            'bare cpu µs',
            'ratio',
            'peak RSS MB',
          ],
          ...results.map((r) => [
            r.engine,
            r.endpoint,
            String(r.bodyBytes),
            f(r.statusbot.rps),
            f(r.statusbot.p50, 2),
            f(r.statusbot.p99, 2),
            f(r.statusbot.cpuUs, 1),
            f(r.statusbot.dbCpuUs, 1),
            f(r.bare.rps),
            f(r.bare.p50, 2),
            f(r.bare.p99, 2),
            f(r.bare.cpuUs, 1),
            `${f(r.ratio * 100, 1)}%`,
            f(r.statusbotPeakRssMb, 1),
          ]),
        ]),
    );
    const observed = results.filter((r) => r.observing);
    if (observed.length > 0) {
      console.log(
        `\nlogs (JSON lines to a file) and metrics: on, and off in the same process (on, off, off, on; ` +
          `${OBSERVING_ROUNDS} fresh processes of ${OBSERVING_SEGMENTS} s pooled; each one's own cost in CPU per request in brackets)\n`,
      );
      console.log(
        table([
          ['engine', 'endpoint', 'on req/s', 'on p99 ms', 'on cpu µs', 'off req/s', 'off p99 ms', 'off cpu µs', 'cost (req/s)', 'cost (cpu)'],
          ...observed.map((r) => [
            r.engine,
            r.endpoint,
            f(r.observing!.on.rps),
            f(r.observing!.on.p99, 2),
            f(r.observing!.on.cpuUs, 1),
            f(r.observing!.off.rps),
            f(r.observing!.off.p99, 2),
            f(r.observing!.off.cpuUs, 1),
            `${f((1 - r.observing!.on.rps / r.observing!.off.rps) * 100, 1)}%`,
            `${f((r.observing!.on.cpuUs / r.observing!.off.cpuUs - 1) * 100, 1)}% (${r.observing!.costs.map((c) => f(c * 100, 1)).join(', ')})`,
          ]),
        ]),
      );
    }
    console.log(`\nstatusbot peak RSS: ${f(peakRssMb, 1)} MB (bare server: ${f(bareRss.maxRssKb / 1024, 1)} MB)\n`);
    console.log(table([['target', 'measured', 'met'], ...targets.map((t) => [t.target, t.measured, t.met ? 'yes' : 'NO'])]));

    const report = {
      date: new Date().toISOString(),
      machine: {
        cpuBusyBeforeStart: busyBefore,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model.trim() ?? null,
        node: process.version,
        platform: process.platform,
      },
      settings: {
        connections: CONNECTIONS,
        seconds: SECONDS,
        rounds: ROUNDS,
        warmupSeconds: WARMUP_SECONDS,
        only: ONLY || null,
        cpuProfile: CPU_PROF_DIR !== null,
      },
      results,
      statusbotPeakRssMb: peakRssMb,
      barePeakRssMb: bareRss.maxRssKb / 1024,
      targets,
    };
    if (ONLY || CPU_PROF_DIR) {
      // A partial or profiled run is not the figure to quote: keep the last full one.
      console.log(`\n(partial or profiled run: ${RESULTS_FILE} left as it was)`);
    } else {
      recordResult('api', report);
      console.log(`\nwrote ${RESULTS_FILE}`);
    }
    return 0;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('\nbench failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
