import type { ProbeAgent } from '../domain/companies/agent-keys.js';
import type { DomainContext } from '../domain/context.js';
import { agentAssignments, recordAgentResults } from '../domain/monitors/agent-results.js';
import type { Reply } from './routes.js';

/** Where probe agents fetch their monitors and post what they saw; a probe agent's token opens these and nothing else. */
export const AGENT_PREFIX = '/api/v2/agent';

export interface AgentRoute {
  method: 'GET' | 'POST';
  path: string;
  handle(ctx: DomainContext, agent: ProbeAgent, body: unknown): Promise<Reply>;
}

export const agentRoutes: readonly AgentRoute[] = [
  {
    method: 'GET',
    path: `${AGENT_PREFIX}/assignments`,
    async handle(ctx, agent) {
      const { region, reportSeconds, monitors } = await agentAssignments(ctx, agent);
      return {
        status: 200,
        body: {
          data: {
            region,
            report_seconds: reportSeconds,
            monitors: monitors.map((m) => ({
              id: m.id,
              name: m.name,
              url: m.url,
              probe_type: m.probeType,
              keyword: m.keyword,
              interval_seconds: m.intervalSeconds,
              record: m.record,
              expect: m.expect,
              dns_server: m.dnsServer,
              days_before_expiry: m.daysBeforeExpiry,
            })),
          },
        },
      };
    },
  },
  {
    method: 'POST',
    path: `${AGENT_PREFIX}/results`,
    async handle(ctx, agent, body) {
      const { accepted } = await recordAgentResults(ctx, agent, body);
      return { status: 202, body: { data: { accepted } } };
    },
  },
];
