import { randomUUID } from 'node:crypto';
import type { Logger } from '../infrastructure/logger.js';
import { StoppingError, describeNetworkError } from '../infrastructure/outbound.js';
import type { ProbeClient, ProbeTarget } from '../probes/probe-client.js';
import { phaseOf } from '../probes/probe-settings.js';
import { createResultBuffer } from './result-buffer.js';
import type { AgentResult, ResultBuffer } from './result-buffer.js';
import { ServerRefusal } from './server-link.js';
import type { ServerLink } from './server-link.js';

/** A monitor as the server assigns it (GET /api/v2/agent/assignments). */
interface AssignedMonitor {
  id: number;
  name: string;
  url: string;
  probe_type: ProbeTarget['probeType'];
  keyword: string | null;
  interval_seconds: number;
  record: ProbeTarget['record'];
  expect: string[] | null;
  dns_server: string | null;
  days_before_expiry: number | null;
}

interface Scheduled {
  target: ProbeTarget;
  intervalMs: number;
  dueAt: number;
  running: boolean;
}

export interface ProbeAgentOptions {
  link: ServerLink;
  /** The same probes the servers run, with the agent's private-target guard. */
  client: ProbeClient;
  region: string;
  logger: Logger;
  /** Results kept while the server is away; full, the oldest are dropped. */
  bufferSize?: number;
  /** How often the assignments are fetched again. */
  assignmentsMs?: number;
  /** How often results are sent (and, without results, a report that the agent is alive). */
  reportMs?: number;
  tickMs?: number;
  /** Probes under way at once (`probes.concurrency`); the rest wait for the next tick. */
  concurrency?: number;
}

export interface ProbeAgent {
  start(): Promise<void>;
  /** Stops probing, sends what it holds once more, and closes. */
  stop(): Promise<void>;
  readonly buffer: ResultBuffer;
}

const BATCH = 1_000;

/** An agent's state: its schedule, the results it holds, and how the server last answered. */
interface Agent {
  options: ProbeAgentOptions;
  reportMs: number;
  buffer: ResultBuffer;
  /** This process's results, numbered from 1 in the order seen, so that the server records a batch sent again once. */
  run: string;
  seen: number;
  monitors: Map<number, Scheduled>;
  inFlight: Set<Promise<void>>;
  timers: NodeJS.Timeout[];
  stopped: boolean;
  lastSentAt: number;
  /** After a failed send, the next waits: 1 s, doubling up to the report period, so that a server coming back is not flooded. */
  failedSends: number;
  retryAt: number;
  sending: Promise<void> | null;
  /** Why the server could not be reached, while it cannot: said once per outage. */
  away: string | null;
  warnedRegion: boolean;
  /** A refused token (revoked, say) is told once, until the server takes it again. */
  tokenRefused: boolean;
}

/**
 * An agent probing a company's monitors from its own region: it fetches its
 * assignments, probes each monitor every interval with the servers' own probe
 * code, and posts what it saw. While the server is away it keeps probing,
 * holds the results (a bounded buffer, the oldest dropped first) and sends
 * them once the server answers again; it keeps the last assignments meanwhile.
 */
export function createProbeAgent(options: ProbeAgentOptions): ProbeAgent {
  const { logger } = options;
  const assignmentsMs = options.assignmentsMs ?? 30_000;
  const tickMs = options.tickMs ?? 250;
  const a: Agent = {
    options,
    reportMs: options.reportMs ?? 10_000,
    buffer: createResultBuffer(options.bufferSize ?? 10_000, (total) => {
      // Each drop counts; the log says so at the first, then at every thousandth.
      if (total === 1 || total % 1_000 === 0) logger.warn(`result buffer full: dropping the oldest results (${total} dropped so far)`, { dropped: total });
    }),
    run: randomUUID(),
    seen: 0,
    monitors: new Map(),
    inFlight: new Set(),
    timers: [],
    stopped: false,
    lastSentAt: 0,
    failedSends: 0,
    retryAt: 0,
    sending: null,
    away: null,
    warnedRegion: false,
    tokenRefused: false,
  };
  return {
    buffer: a.buffer,
    async start() {
      await refresh(a);
      a.timers = [setInterval(() => tick(a), tickMs), setInterval(() => void refresh(a), assignmentsMs)];
      tick(a);
    },
    async stop() {
      a.stopped = true;
      for (const t of a.timers) clearInterval(t);
      a.timers = [];
      while (a.inFlight.size > 0) await Promise.race(a.inFlight);
      if (a.sending) await a.sending;
      if (a.buffer.size > 0) await send(a).catch(() => undefined);
    },
  };
}

function serverAway(a: Agent, error: unknown): void {
  const why = error instanceof ServerRefusal ? error.message : describeNetworkError(error, 0);
  if (a.away === null) a.options.logger.warn(`the server cannot be reached (${why}); probing on, results are kept`, { buffered: a.buffer.size });
  a.away = why;
}

function refused(a: Agent, error: ServerRefusal): void {
  if (!a.tokenRefused) a.options.logger.error(`the server refuses this agent's token (revoked?); probing on, results are kept: ${error.message}`);
  a.tokenRefused = true;
}

function serverBack(a: Agent): void {
  a.tokenRefused = false;
  if (a.away !== null) a.options.logger.info('the server answers again', { buffered: a.buffer.size, dropped: a.buffer.droppedTotal });
  a.away = null;
}

/** Fetches the assignments; the ones held stay while the server is away. */
async function refresh(a: Agent): Promise<void> {
  const { options } = a;
  let answer: { data: { region?: string; report_seconds?: number; monitors: AssignedMonitor[] } };
  try {
    answer = (await options.link.get('/api/v2/agent/assignments')) as typeof answer;
  } catch (error) {
    if (error instanceof ServerRefusal && error.status === 401) refused(a, error);
    else serverAway(a, error);
    return;
  }
  serverBack(a);
  if (answer.data.region !== undefined && answer.data.region !== options.region && !a.warnedRegion) {
    a.warnedRegion = true;
    options.logger.warn(`the token is for region ${answer.data.region}, not ${options.region}: the server counts its results for ${answer.data.region}`);
  }
  if (answer.data.report_seconds && options.reportMs === undefined) a.reportMs = answer.data.report_seconds * 1000;
  schedule(a, answer.data.monitors);
}

/** The assignments as the schedule: new monitors placed in their interval, changed ones updated, removed ones dropped. */
function schedule(a: Agent, assigned: readonly AssignedMonitor[]): void {
  const seen = new Set<number>();
  const now = Date.now();
  for (const m of assigned) {
    seen.add(m.id);
    const target: ProbeTarget = {
      url: m.url,
      probeType: m.probe_type,
      keyword: m.keyword,
      record: m.record,
      expect: m.expect,
      dnsServer: m.dns_server,
      daysBeforeExpiry: m.days_before_expiry,
    };
    const known = a.monitors.get(m.id);
    if (known) Object.assign(known, { target, intervalMs: m.interval_seconds * 1000 });
    else {
      // Spread over the interval as the servers' prober does: thousands of monitors do not all fire at the start.
      const intervalMs = m.interval_seconds * 1000;
      const phase = phaseOf(m.id, intervalMs);
      a.monitors.set(m.id, { target, intervalMs, dueAt: Math.ceil((now - phase) / intervalMs) * intervalMs + phase, running: false });
    }
  }
  for (const id of a.monitors.keys()) if (!seen.has(id)) a.monitors.delete(id);
}

function probe(a: Agent, id: number, m: Scheduled): void {
  m.running = true;
  const work = (async () => {
    const at = Date.now();
    const started = performance.now();
    try {
      const outcome = await a.options.client.probe(m.target);
      const latencyMs = Math.round(performance.now() - started);
      a.buffer.push({ monitorId: id, ok: outcome.ok, reason: outcome.ok ? null : outcome.reason, latencyMs, at, seq: ++a.seen });
    } catch (error) {
      if (!(error instanceof StoppingError)) a.options.logger.error(`probe of monitor ${id} failed unexpectedly`, error);
    } finally {
      m.running = false;
    }
  })();
  a.inFlight.add(work);
  void work.finally(() => a.inFlight.delete(work));
}

function tick(a: Agent): void {
  const now = Date.now();
  const concurrency = a.options.concurrency ?? 1_000;
  for (const [id, m] of a.monitors) {
    if (m.dueAt > now) continue;
    // At the concurrency, due monitors wait for the next tick, still due.
    if (!m.running && a.inFlight.size >= concurrency) break;
    m.dueAt += Math.max(1, Math.ceil((now - m.dueAt + 1) / m.intervalMs)) * m.intervalMs;
    if (!m.running) probe(a, id, m);
  }
  // Results go as soon as there are some; without any, a report at least every reportMs says the agent is alive.
  if (!a.sending && now >= a.retryAt && (a.buffer.size > 0 || now - a.lastSentAt >= a.reportMs)) {
    a.sending = send(a).finally(() => {
      a.sending = null;
    });
  }
}

/** Sends what the buffer holds, a batch at a time, until it is empty or the server fails. */
async function send(a: Agent): Promise<void> {
  const { buffer } = a;
  do {
    const batch: AgentResult[] = buffer.peek(BATCH);
    const drops = buffer.unreportedDrops;
    const now = Date.now();
    try {
      await a.options.link.post('/api/v2/agent/results', resultsBody(a, batch, drops, now));
    } catch (error) {
      if (error instanceof ServerRefusal && error.status === 422) {
        // A monitor removed since the assignments, say: the batch will never be taken, so it is not kept.
        a.options.logger.warn(`the server refused ${batch.length} results; they are dropped: ${error.message}`);
        buffer.sent(batch.length, 0);
        void refresh(a);
        continue;
      }
      if (error instanceof ServerRefusal && error.status === 401) refused(a, error);
      else serverAway(a, error);
      a.lastSentAt = now;
      a.failedSends++;
      a.retryAt = Date.now() + Math.min(a.reportMs, 1000 * 2 ** (a.failedSends - 1));
      return;
    }
    serverBack(a);
    a.failedSends = 0;
    buffer.sent(batch.length, drops);
    a.lastSentAt = now;
  } while (buffer.size > 0 && !a.stopped);
}

/** A batch as POST /api/v2/agent/results takes it. */
function resultsBody(a: Agent, batch: readonly AgentResult[], drops: number, now: number) {
  return {
    results: batch.map((r) => ({
      monitor_id: r.monitorId,
      ok: r.ok,
      reason: r.reason,
      latency_ms: r.latencyMs,
      age_ms: Math.max(0, now - r.at),
      seq: r.seq,
    })),
    dropped: drops,
    // The run's drops so far: a batch sent again with results added since does not count the same drops twice.
    dropped_total: a.buffer.droppedTotal,
    run: a.run,
  };
}
