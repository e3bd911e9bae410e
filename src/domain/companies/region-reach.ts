import type { AgentReadContext } from './agent-keys.js';
import { listAgents } from './agent-keys.js';
import type { AgentInfo } from './agent-keys.js';
import { companyNamed } from './api-keys.js';
import { plural } from '../plural.js';

/**
 * What a company's quorum can count on: the server's own region, which
 * always probes, and its probe agents' regions. A quorum larger than the
 * regions that report can never be met: its monitors never go down.
 */
export interface RegionReach {
  company: string;
  quorum: number;
  /** Regions with an agent token that is not revoked, by name. */
  agentRegions: string[];
  /** Of those, the regions where an agent reported within two intervals (see listAgents), by name. */
  liveRegions: string[];
}

/** The servers' own region: every server probes as one region, whatever it is named. */
export const SERVER_REGIONS = 1;

/**
 * Each company (or the one named) with its quorum and the regions its agents
 * hold, by name; from `listed` when the caller has read listAgents already.
 */
export async function regionReach(ctx: AgentReadContext, companyName?: string, listed?: readonly AgentInfo[]): Promise<RegionReach[]> {
  const named = companyName === undefined ? null : await companyNamed(ctx.db, companyName);
  let query = ctx.db.selectFrom('companies').select(['name', 'region_quorum']);
  if (named) query = query.where('id', '=', named.id);
  const companies = await query.orderBy('name').execute();
  const agents = (listed ?? (await listAgents(ctx, companyName))).filter((a) => a.revokedAt === null);
  return companies.map((c) => {
    const own = agents.filter((a) => a.company === c.name);
    return {
      company: c.name,
      quorum: Number(c.region_quorum),
      agentRegions: [...new Set(own.map((a) => a.region))].sort(),
      liveRegions: [...new Set(own.filter((a) => !a.stale).map((a) => a.region))].sort(),
    };
  });
}

const regionList = (regions: readonly string[]): string =>
  regions.length === 0 ? 'no agent region' : `${plural(regions.length, 'agent region')} (${regions.join(', ')})`;

/**
 * The text of a warning for each company whose quorum is more than its
 * regions can meet, for the operator (the command line prefixes it with
 * "warning: ", the server logs it at warn): `held` counts every region with an agent token (what
 * `statusbot apply` can tell), `reporting` only those reporting now (what
 * `statusbot agents list` tells).
 */
export function shortQuorumWarnings(reaches: readonly RegionReach[], count: 'held' | 'reporting'): string[] {
  return reaches.flatMap((r) => {
    const regions = count === 'held' ? r.agentRegions : r.liveRegions;
    if (SERVER_REGIONS + regions.length >= r.quorum) return [];
    const stale = r.agentRegions.filter((name) => !r.liveRegions.includes(name));
    const how =
      count === 'held'
        ? `more than can report: this server's region and ${regionList(regions)}; statusbot key create --agent --company ${r.company} --region NAME adds one`
        : `more than report now: this server's region and ${regionList(regions)}${stale.length > 0 ? `, stale: ${stale.join(', ')}` : ''}`;
    return [`${r.company}'s quorum of ${r.quorum} regions is ${how}. Its monitors cannot go down until ${r.quorum} regions report.`];
  });
}
