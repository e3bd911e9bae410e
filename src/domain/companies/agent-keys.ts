import { z } from 'zod';
import type { DomainContext, Tx } from '../context.js';
import { parseInput } from '../validation.js';
import type { Company } from '../model/company.js';
import { companyNamed, createApiKey } from './api-keys.js';

/** A region's name, as the config's `region` of a server: on one line. */
export const regionName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}]+$/u, { error: 'must be on one line, without control characters' });

/** An agent reports at least this often, results or not, so that a quiet agent is told from a gone one. */
export const AGENT_REPORT_SECONDS = 10;
/** Without monitors to probe, an agent is stale after this long without a report. */
const DEFAULT_INTERVAL_SECONDS = 60;

/** What reading the agents needs: the database and the clock (the metrics read them too). */
export type AgentReadContext = Pick<DomainContext, 'db' | 'clock'>;

export interface ProbeAgent {
  company: Company;
  keyId: number;
  region: string;
}

/** Issues a probe agent's token for a company's region; the plaintext is returned once, as an API key's. */
export async function createAgentKey(
  ctx: DomainContext,
  companyName: string,
  rawRegion: string,
  label?: string,
): Promise<{ key: string; id: number; company: string; label: string; region: string }> {
  const region = parseInput(regionName, rawRegion, 'body', 'region');
  const issued = await createApiKey(ctx, companyName, label ?? `agent ${region}`, region);
  return { ...issued, region };
}

/** How long a company's agent may go without a report before it is stale: two intervals of its most frequent monitor. */
export async function staleAfterMs(ctx: AgentReadContext, companyId: number): Promise<number> {
  const row = await ctx.db
    .selectFrom('custom_monitors')
    .select((eb) => eb.fn.min('interval_seconds').as('shortest'))
    .where('company_id', '=', companyId)
    .where('probe_type', '!=', 'heartbeat')
    .executeTakeFirst();
  const shortest = row?.shortest === null || row?.shortest === undefined ? DEFAULT_INTERVAL_SECONDS : Number(row.shortest);
  return 2 * Math.max(shortest, AGENT_REPORT_SECONDS) * 1000;
}

/** Notes an agent's report (in the transaction of its results), the results it dropped while the server was away, and where its results have got to. */
export async function noteAgentReport(trx: Tx, keyId: number, now: number, dropped: number, reached?: RunMark): Promise<void> {
  const mark = reached ? { run: reached.run, last_seq: reached.lastSeq, run_dropped: reached.dropped } : {};
  await trx
    .insertInto('agent_reports')
    .values({ key_id: keyId, last_report_at: now, dropped, ...mark })
    .onConflict((oc) => oc.column('key_id').doUpdateSet((eb) => ({ last_report_at: now, dropped: eb('agent_reports.dropped', '+', dropped), ...mark })))
    .execute();
}

/** Where an agent's results have got to: the agent process (its run), the last of its results recorded, and the run's drops recorded. */
export interface RunMark {
  run: string;
  lastSeq: number;
  /** The run's total of drops as last recorded; null while the agent has not reported one (older agents). */
  dropped: number | null;
}

/**
 * The mark the agent's last report left, if it said its run. The agent's row
 * is held from here to the end of the transaction (an upsert that takes its
 * lock, also at the first report), so that two batches of one agent recorded
 * at once (one sent again while the first was still being recorded, on any
 * replica) are recorded one after the other, the second seeing the first's
 * mark. SQLite has one writer at a time already.
 */
export async function runMark(trx: Tx, keyId: number, now: number): Promise<RunMark | null> {
  await trx
    .insertInto('agent_reports')
    .values({ key_id: keyId, last_report_at: now })
    .onConflict((oc) => oc.column('key_id').doUpdateSet({ last_report_at: now }))
    .execute();
  const row = await trx.selectFrom('agent_reports').select(['run', 'last_seq', 'run_dropped']).where('key_id', '=', keyId).executeTakeFirst();
  return row?.run == null || row.last_seq == null
    ? null
    : { run: row.run, lastSeq: Number(row.last_seq), dropped: row.run_dropped == null ? null : Number(row.run_dropped) };
}

export interface AgentInfo {
  id: number;
  company: string;
  region: string;
  label: string;
  lastReportAt: Date | null;
  /** No report within two intervals (or none yet): its results count toward no quorum. */
  stale: boolean;
  revokedAt: Date | null;
  /** Results it dropped, its buffer full while the server was away. */
  dropped: number;
}

/** Every probe agent (of one company, when named), revoked ones included, by company then region. */
export async function listAgents(ctx: AgentReadContext, companyName?: string): Promise<AgentInfo[]> {
  const company = companyName === undefined ? null : await companyNamed(ctx.db, companyName);
  let query = ctx.db
    .selectFrom('api_keys')
    .innerJoin('companies', 'companies.id', 'api_keys.company_id')
    .leftJoin('agent_reports', 'agent_reports.key_id', 'api_keys.id')
    .select([
      'api_keys.id',
      'api_keys.company_id',
      'companies.name as company',
      'api_keys.agent_region',
      'api_keys.label',
      'api_keys.revoked_at',
      'agent_reports.last_report_at',
      'agent_reports.dropped',
    ])
    .where('api_keys.agent_region', 'is not', null);
  if (company) query = query.where('api_keys.company_id', '=', company.id);
  const rows = await query.orderBy('companies.name').orderBy('api_keys.agent_region').orderBy('api_keys.id').execute();
  const now = ctx.clock.now().getTime();
  const staleAfter = new Map<number, number>();
  const agents: AgentInfo[] = [];
  for (const r of rows) {
    if (!staleAfter.has(r.company_id)) staleAfter.set(r.company_id, await staleAfterMs(ctx, r.company_id));
    const last = r.last_report_at === null ? null : Number(r.last_report_at);
    agents.push({
      id: Number(r.id),
      company: r.company,
      region: r.agent_region!,
      label: r.label,
      lastReportAt: last === null ? null : new Date(last),
      stale: r.revoked_at !== null || last === null || now - last > staleAfter.get(r.company_id)!,
      revokedAt: r.revoked_at === null ? null : new Date(Number(r.revoked_at)),
      dropped: Number(r.dropped ?? 0),
    });
  }
  return agents;
}
