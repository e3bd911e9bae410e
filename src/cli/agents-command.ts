import type { AgentInfo } from '../domain/companies/agent-keys.js';
import { listAgents } from '../domain/companies/agent-keys.js';
import { regionReach, shortQuorumWarnings } from '../domain/companies/region-reach.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';

function agentLine(a: AgentInfo): string {
  const last = a.lastReportAt ? `last report ${a.lastReportAt.toISOString()}` : 'no report yet';
  const state = a.revokedAt ? `revoked ${a.revokedAt.toISOString()}` : a.stale ? 'stale' : 'reporting';
  const dropped = a.dropped > 0 ? `\tdropped ${a.dropped}` : '';
  return `${a.id}\t${a.company}\t${a.region}\t${last}\t${state}${dropped}`;
}

/** `statusbot agents list`, as commands.ts describes it. */
export async function runAgentsList(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  return withContext(input.dbPath, async (ctx) => {
    const agents = await listAgents(ctx, input.string('company'));
    if (agents.length === 0) input.out('there are no probe agents; statusbot key create --agent --company NAME --region NAME issues a token');
    for (const a of agents) input.out(agentLine(a));
    for (const line of shortQuorumWarnings(await regionReach(ctx, input.string('company')), 'reporting')) input.err(`warning: ${line}`);
    return 0;
  });
}
