import { z } from 'zod';
import type { ProbeAgent } from '../companies/agent-keys.js';
import { AGENT_REPORT_SECONDS, noteAgentReport, runMark } from '../companies/agent-keys.js';
import type { DomainContext } from '../context.js';
import { invalidInput } from '../errors.js';
import { monitorsUnderMaintenance } from '../services/maintenance-windows.js';
import { parseInput } from '../validation.js';
import type { DnsRecord, ProbeType } from './monitor.js';
import type { ProbeHourSums } from './probe-rollup.js';
import { addProbeHours, addSums, probeSums } from './probe-rollup.js';
import { recordProbeIn } from './probe-results.js';
import type { QuorumReach } from './quorum-reach.js';
import { noteQuorumReach } from './quorum-reach.js';

/** At most this many results in one batch: an agent sends what it holds in several. */
export const MAX_RESULTS_PER_BATCH = 1_000;

/** A batch of a probe agent's results. Ages, not times, so that the agent's clock need not agree with the server's. */
export const agentResultsInput = z.strictObject({
  results: z
    .array(
      z.strictObject({
        monitor_id: z.int().min(0),
        ok: z.boolean(),
        /** Why it is down: the HTTP status, "connection refused", "certificate expires in 3 days"… */
        reason: z.string().trim().min(1).max(500).nullable().default(null),
        latency_ms: z.number().min(0).max(3_600_000).nullable().default(null),
        /** How long ago the probe ran, when the batch was sent. */
        age_ms: z
          .int()
          .min(0)
          .max(30 * 86_400_000)
          .default(0),
        /** Its place among the results of the agent's run, counted from 1 (with `run`). */
        seq: z.int().min(1).optional(),
      }),
    )
    .max(MAX_RESULTS_PER_BATCH),
  /** Results the agent dropped since its last batch (its buffer full while the server was away). */
  dropped: z.int().min(0).default(0),
  /**
   * With `run`: every result the run has dropped so far. Only what it adds to the total last recorded is counted
   * (a batch sent again with results added since tells of the same drops again); `dropped` is then not read.
   */
  dropped_total: z.int().min(0).optional(),
  /**
   * The agent process that saw them, any text it keeps for its life. With it, every result carries its `seq`, and
   * a result already recorded (a batch sent again, its answer lost) is not counted again.
   */
  run: z.string().min(1).max(100).optional(),
});

/** What an agent probes: every monitor of its company but heartbeats (pushed to the servers, which judge them). */
export interface Assignment {
  id: number;
  name: string;
  url: string;
  probeType: Exclude<ProbeType, 'heartbeat'>;
  keyword: string | null;
  intervalSeconds: number;
  record: DnsRecord | null;
  expect: string[] | null;
  dnsServer: string | null;
  daysBeforeExpiry: number | null;
}

export async function agentAssignments(ctx: DomainContext, agent: ProbeAgent): Promise<{ region: string; reportSeconds: number; monitors: Assignment[] }> {
  const rows = await ctx.db
    .selectFrom('custom_monitors')
    .select(['id', 'name', 'url', 'probe_type', 'keyword', 'interval_seconds', 'dns_record', 'dns_expect', 'dns_server', 'days_before_expiry'])
    .where('company_id', '=', agent.company.id)
    .where('probe_type', '!=', 'heartbeat')
    .orderBy('id')
    .execute();
  const monitors = rows.map(
    (r): Assignment => ({
      id: r.id,
      name: r.name,
      url: r.url,
      probeType: r.probe_type as Assignment['probeType'],
      keyword: r.keyword,
      intervalSeconds: r.interval_seconds,
      record: r.dns_record as DnsRecord | null,
      expect: r.dns_expect === null ? null : (JSON.parse(r.dns_expect) as string[]),
      dnsServer: r.dns_server,
      daysBeforeExpiry: r.days_before_expiry,
    }),
  );
  return { region: agent.region, reportSeconds: AGENT_REPORT_SECONDS, monitors };
}

/**
 * Records a batch of a probe agent's results, oldest first, as results of its
 * region, in one transaction with the note of its report and the hours of
 * the region's history (see probe-rollup.ts). A result for a
 * monitor that is not its company's (or a heartbeat) refuses the whole batch.
 * Results of the agent's run recorded already (`seq` up to its mark) are
 * taken but not counted again: `repeated`.
 */
export async function recordAgentResults(ctx: DomainContext, agent: ProbeAgent, raw: unknown): Promise<{ accepted: number; repeated: number }> {
  const input = parseInput(agentResultsInput, raw ?? {}, 'body');
  const run = input.run;
  if (run === undefined && input.dropped_total !== undefined) throw invalidInput(['dropped_total'], 'needs the run it counts the drops of');
  if (run !== undefined) {
    input.results.forEach((r, i) => {
      if (r.seq === undefined) throw invalidInput(['results', i, 'seq'], 'needs its seq when the batch names its run');
    });
  }
  const ids = [...new Set(input.results.map((r) => r.monitor_id))];
  const monitors = new Map(
    ids.length === 0
      ? []
      : (
          await ctx.db
            .selectFrom('custom_monitors')
            .select(['id', 'company_id', 'name', 'url', 'status', 'consecutive_failures'])
            .where('company_id', '=', agent.company.id)
            .where('probe_type', '!=', 'heartbeat')
            .where('id', 'in', ids)
            .execute()
        ).map((m) => [m.id, m]),
  );
  input.results.forEach((r, i) => {
    if (!monitors.has(r.monitor_id)) throw invalidInput(['results', i, 'monitor_id'], `is not a monitor that ${agent.company.name}'s agents probe`);
  });
  const now = ctx.clock.now().getTime();
  const paused = await monitorsUnderMaintenance(ctx.db, now);
  const sent = input.results.map((r) => ({ ...r, at: now - r.age_ms })).sort((a, b) => a.at - b.at);
  const reaches = new Map<number, QuorumReach>();
  let recorded = 0;
  await ctx.write(async (trx) => {
    reaches.clear();
    // Results of the run recorded already (a batch sent again, its answer lost) are taken, not counted again.
    const mark = run === undefined ? null : await runMark(trx, agent.keyId, now);
    const sameRun = mark !== null && mark.run === run;
    const seen = sameRun ? mark.lastSeq : 0;
    const results = sent.filter((r) => r.seq === undefined || r.seq > seen);
    recorded = results.length;
    // The region's hourly history, as the server's own probes keep it: a maintenance's time is left out, and
    // a success without a response time counts in no average (statusbot's agents always send one).
    const hours = new Map<string, ProbeHourSums>();
    for (const r of results) {
      if (paused.has(r.monitor_id) || (r.ok && r.latency_ms === null)) continue;
      addSums(hours, probeSums(r.monitor_id, r.at, r.latency_ms ?? 0, r.ok));
    }
    await addProbeHours(trx, agent.region, [...hours.values()]);
    for (const r of results) {
      // During a maintenance of its service a monitor's failures open no incident; a success still ends an outage.
      if (!r.ok && paused.has(r.monitor_id)) continue;
      const m = monitors.get(r.monitor_id)!;
      const state = { id: m.id, companyId: m.company_id, name: m.name, url: m.url, status: m.status, consecutiveFailures: m.consecutive_failures };
      const outcome = r.ok ? { ok: true as const } : { ok: false as const, reason: r.reason ?? 'down' };
      const { reach } = await recordProbeIn(ctx, trx, state, outcome, agent.region, { latencyMs: r.latency_ms, at: r.at });
      if (reach) reaches.set(m.id, reach);
    }
    const runDropped = sameRun ? (mark.dropped ?? 0) : 0;
    // A run's total counts what it adds to the one recorded; else a batch recorded before in full told of its drops then.
    const dropped =
      input.dropped_total !== undefined ? Math.max(0, input.dropped_total - runDropped) : sent.length > 0 && results.length === 0 ? 0 : input.dropped;
    const lastSeq = Math.max(seen, ...results.map((r) => r.seq ?? 0));
    const reached =
      run === undefined
        ? undefined
        : { run, lastSeq, dropped: input.dropped_total !== undefined ? Math.max(runDropped, input.dropped_total) : sameRun ? mark.dropped : null };
    await noteAgentReport(trx, agent.keyId, now, dropped, reached);
  });
  // The batch's last word on each monitor, once committed.
  for (const [id, reach] of reaches) noteQuorumReach(ctx, monitors.get(id)!, reach);
  return { accepted: recorded, repeated: sent.length - recorded };
}
