import type { ProbeAgent } from '../domain/companies/agent-keys.js';
import { DomainError } from '../domain/errors.js';
import { agentAssignments, agentResultsInput, recordAgentResults } from '../domain/monitors/agent-results.js';
import { agentAssignmentsDocument, agentResultsDocument } from './api-schemas.js';
import type { ApiRequest, Route } from './route.js';

/** The agent a request of an agent route comes from (the server admits only an agent's token to these routes). */
function agentOf(req: ApiRequest): ProbeAgent {
  if (req.agentRegion === null) throw new DomainError('unauthorized', 'An API key opens no agent endpoint: statusbot key create --agent issues a token');
  return { company: req.company, keyId: req.keyId, region: req.agentRegion };
}

/**
 * Where probe agents (`statusbot agent`) fetch their monitors and post what
 * they saw: routes of the one table (routes.ts) that admit a probe agent's
 * token, which opens them and nothing else.
 */
export const agentRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/agent/assignments',
    caller: 'agent',
    doc: {
      operationId: 'getAgentAssignments',
      tag: 'Probe agents',
      summary: 'The monitors a probe agent probes, and its region',
      description:
        "With a probe agent's token (`statusbot key create --agent --company NAME --region NAME`): every monitor of its company but heartbeats, " +
        'each with how often to probe it. `statusbot agent` asks again now and then to see monitors added or changed.',
      success: { status: 200, description: "The agent's region and monitors", schema: agentAssignmentsDocument },
    },
    async handle(req) {
      const { region, reportSeconds, monitors } = await agentAssignments(req.ctx, agentOf(req));
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
    path: '/agent/results',
    caller: 'agent',
    doc: {
      operationId: 'postAgentResults',
      tag: 'Probe agents',
      summary: "Record a batch of a probe agent's results",
      description:
        "With a probe agent's token: results of its region, each with its age when sent (so that the agent's clock need not agree with the server's), " +
        'oldest first or not. They count toward the quorum of regions that calls a monitor down (a result older than the one kept counts no more), ' +
        "and into the region's hourly history. The report itself tells the agent is alive, even with no result.",
      body: { schema: agentResultsInput, required: true },
      success: { status: 202, description: 'The batch was recorded', schema: agentResultsDocument },
      errors: { 422: "a result names a monitor that is not one of the agent's company's, or a heartbeat; the whole batch is refused" },
    },
    async handle(req) {
      return { status: 202, body: { data: await recordAgentResults(req.ctx, agentOf(req), req.body) } };
    },
  },
];
