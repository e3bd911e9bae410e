import { randomUUID } from 'node:crypto';
import type { Logger } from '../infrastructure/logger.js';
import { StoppingError, describeNetworkError } from '../infrastructure/outbound.js';
import type { ProbeClient, ProbeTarget } from '../jobs/http-probe.js';
import { phaseOf } from '../jobs/probe-settings.js';
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

/**
 * An agent probing a company's monitors from its own region: it fetches its
 * assignments, probes each monitor every interval with the servers' own probe
 * code, and posts what it saw. While the server is away it keeps probing,
 * holds the results (a bounded buffer, the oldest dropped first) and sends
 * them once the server answers again; it keeps the last assignments meanwhile.
 */
export function createProbeAgent(options: ProbeAgentOptions): ProbeAgent {
  const { link, client, logger } = options;
  const assignmentsMs = options.assignmentsMs ?? 30_000;
  const tickMs = options.tickMs ?? 250;
  const concurrency = options.concurrency ?? 1_000;
  let reportMs = options.reportMs ?? 10_000;
  const buffer = createResultBuffer(options.bufferSize ?? 10_000, (total) => {
    // Each drop counts; the log says so at the first, then at every thousandth.
    if (total === 1 || total % 1_000 === 0) logger.warn(`result buffer full: dropping the oldest results (${total} dropped so far)`, { dropped: total });
  });
  /** This process's results, numbered from 1 in the order seen, so that the server records a batch sent again once. */
  const run = randomUUID();
  let seen = 0;
  const monitors = new Map<number, Scheduled>();
  const inFlight = new Set<Promise<void>>();
  let timers: NodeJS.Timeout[] = [];
  let stopped = false;
  let lastSentAt = 0;
  /** After a failed send, the next waits: 1 s, doubling up to the report period, so that a server coming back is not flooded. */
  let failedSends = 0;
  let retryAt = 0;
  let sending: Promise<void> | null = null;
  /** Why the server could not be reached, while it cannot: said once per outage. */
  let away: string | null = null;
  let warnedRegion = false;

  function serverAway(error: unknown): void {
    const why = error instanceof ServerRefusal ? error.message : describeNetworkError(error, 0);
    if (away === null) logger.warn(`the server cannot be reached (${why}); probing on, results are kept`, { buffered: buffer.size });
    away = why;
  }

  /** A refused token (revoked, say) is told once, until the server takes it again. */
  let tokenRefused = false;
  function refused(error: ServerRefusal): void {
    if (!tokenRefused) logger.error(`the server refuses this agent's token (revoked?); probing on, results are kept: ${error.message}`);
    tokenRefused = true;
  }

  function serverBack(): void {
    tokenRefused = false;
    if (away !== null) logger.info('the server answers again', { buffered: buffer.size, dropped: buffer.droppedTotal });
    away = null;
  }

  async function refresh(): Promise<void> {
    let answer: { data: { region?: string; report_seconds?: number; monitors: AssignedMonitor[] } };
    try {
      answer = (await link.get('/api/v2/agent/assignments')) as typeof answer;
    } catch (error) {
      if (error instanceof ServerRefusal && error.status === 401) refused(error);
      else serverAway(error);
      return;
    }
    serverBack();
    if (answer.data.region !== undefined && answer.data.region !== options.region && !warnedRegion) {
      warnedRegion = true;
      logger.warn(`the token is for region ${answer.data.region}, not ${options.region}: the server counts its results for ${answer.data.region}`);
    }
    if (answer.data.report_seconds && options.reportMs === undefined) reportMs = answer.data.report_seconds * 1000;
    const seen = new Set<number>();
    const now = Date.now();
    for (const m of answer.data.monitors) {
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
      const known = monitors.get(m.id);
      if (known) Object.assign(known, { target, intervalMs: m.interval_seconds * 1000 });
      else {
        // Spread over the interval as the servers' prober does: thousands of monitors do not all fire at the start.
        const intervalMs = m.interval_seconds * 1000;
        const phase = phaseOf(m.id, intervalMs);
        monitors.set(m.id, { target, intervalMs, dueAt: Math.ceil((now - phase) / intervalMs) * intervalMs + phase, running: false });
      }
    }
    for (const id of monitors.keys()) if (!seen.has(id)) monitors.delete(id);
  }

  function probe(id: number, m: Scheduled): void {
    m.running = true;
    const work = (async () => {
      const at = Date.now();
      const started = performance.now();
      try {
        const outcome = await client.probe(m.target);
        const latencyMs = Math.round(performance.now() - started);
        buffer.push({ monitorId: id, ok: outcome.ok, reason: outcome.ok ? null : outcome.reason, latencyMs, at, seq: ++seen });
      } catch (error) {
        if (!(error instanceof StoppingError)) logger.error(`probe of monitor ${id} failed unexpectedly`, error);
      } finally {
        m.running = false;
      }
    })();
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  function tick(): void {
    const now = Date.now();
    for (const [id, m] of monitors) {
      if (m.dueAt > now) continue;
      // At the concurrency, due monitors wait for the next tick, still due.
      if (!m.running && inFlight.size >= concurrency) break;
      m.dueAt += Math.max(1, Math.ceil((now - m.dueAt + 1) / m.intervalMs)) * m.intervalMs;
      if (!m.running) probe(id, m);
    }
    // Results go as soon as there are some; without any, a report at least every reportMs says the agent is alive.
    if (!sending && now >= retryAt && (buffer.size > 0 || now - lastSentAt >= reportMs)) {
      sending = send().finally(() => {
        sending = null;
      });
    }
  }

  /** Sends what the buffer holds, a batch at a time, until it is empty or the server fails. */
  async function send(): Promise<void> {
    do {
      const batch: AgentResult[] = buffer.peek(BATCH);
      const drops = buffer.unreportedDrops;
      const now = Date.now();
      const body = {
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
        dropped_total: buffer.droppedTotal,
        run,
      };
      try {
        await link.post('/api/v2/agent/results', body);
      } catch (error) {
        if (error instanceof ServerRefusal && error.status === 422) {
          // A monitor removed since the assignments, say: the batch will never be taken, so it is not kept.
          logger.warn(`the server refused ${batch.length} results; they are dropped: ${error.message}`);
          buffer.sent(batch.length, 0);
          void refresh();
          continue;
        }
        if (error instanceof ServerRefusal && error.status === 401) refused(error);
        else serverAway(error);
        lastSentAt = now;
        failedSends++;
        retryAt = Date.now() + Math.min(reportMs, 1000 * 2 ** (failedSends - 1));
        return;
      }
      serverBack();
      failedSends = 0;
      buffer.sent(batch.length, drops);
      lastSentAt = now;
    } while (buffer.size > 0 && !stopped);
  }

  return {
    buffer,
    async start() {
      await refresh();
      timers = [setInterval(tick, tickMs), setInterval(() => void refresh(), assignmentsMs)];
      tick();
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearInterval(t);
      timers = [];
      while (inFlight.size > 0) await Promise.race(inFlight);
      if (sending) await sending;
      if (buffer.size > 0) await send().catch(() => undefined);
    },
  };
}
