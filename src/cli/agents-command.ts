import type { AgentInfo } from '../domain/companies/agent-keys.js';
import { listAgents } from '../domain/companies/agent-keys.js';
import { regionReach, shortQuorumWarnings } from '../domain/companies/region-reach.js';
import type { Command } from './command.js';
import { mustExist, withContext } from './database-access.js';

function agentLine(a: AgentInfo): string {
  const last = a.lastReportAt ? `last report ${a.lastReportAt.toISOString()}` : 'no report yet';
  const state = a.revokedAt ? `revoked ${a.revokedAt.toISOString()}` : a.stale ? 'stale' : 'reporting';
  const dropped = a.dropped > 0 ? `\tdropped ${a.dropped}` : '';
  return `${a.id}\t${a.company}\t${a.region}\t${last}\t${state}${dropped}`;
}

export const agentsListCommand: Command = {
  name: 'agents list',
  synopsis: '[--company NAME] [--db FILE|URL]',
  summary: 'probe agents: region, last report, and whether they are stale',
  details: [
    'One line per agent token: id (as key revoke takes it), company, region, last report, and reporting, stale or revoked.',
    "An agent is stale without a report for two intervals of its company's most frequent monitor (at least 20 s):",
    'its results then count toward no quorum. "dropped N": results it dropped, its buffer full while the server was away.',
    'Warns, on stderr, of each company with fewer regions reporting (this server and its live agents) than its quorum: its monitors cannot go down.',
  ].join('\n'),
  options: ['company', 'db'],
  async run(input) {
    mustExist(input.dbPath);
    return withContext(input.dbPath, async (ctx) => {
      const agents = await listAgents(ctx, input.string('company'));
      if (agents.length === 0) input.out('there are no probe agents; statusbot key create --agent --company NAME --region NAME issues a token');
      for (const a of agents) input.out(agentLine(a));
      for (const line of shortQuorumWarnings(await regionReach(ctx, input.string('company')), 'reporting')) input.err(`warning: ${line}`);
      return 0;
    });
  },
};
