import { setMaxListeners } from 'node:events';
import { createProbeAgent } from '../agent/probe-agent.js';
import { createServerLink } from '../agent/server-link.js';
import { regionName } from '../domain/companies/agent-keys.js';
import { parseInput } from '../domain/validation.js';
import { createProbeClient } from '../jobs/http-probe.js';
import { USER_AGENT } from '../main.js';
import { UsageError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { Command } from './command.js';
import { configOf } from './config-access.js';

/** How long one request to the server may take. */
const SERVER_TIMEOUT_MS = 10_000;

export const agentCommand: Command = {
  name: 'agent',
  synopsis: '--server URL --token T --region NAME [--config FILE] [--block-private-targets]',
  summary: "probe a company's monitors from another region, reporting to a server",
  details: [
    "Fetches the monitors of the token's company from the server (every kind but heartbeats, which the servers judge),",
    'probes each every interval as the servers do, and posts the results. It needs no database: while the server is',
    'away it keeps probing and holds up to 10000 results (the oldest dropped first, the drops counted and logged),',
    'sent once the server answers. HTTP probes carry the user agent "statusbot-monitor/… (agent; region NAME)" and the',
    'header X-Statusbot-Region: NAME.',
    'Timeouts and the private-target guard come from the probes section of --config, if given. SIGTERM or SIGINT stops it.',
  ].join('\n'),
  options: ['server', 'token', 'region', 'config', 'block-private-targets'],
  async run(input) {
    const server = input.string('server') ?? input.env.STATUSBOT_SERVER;
    const token = input.string('token') ?? input.env.STATUSBOT_AGENT_TOKEN;
    const rawRegion = input.string('region');
    if (!server) throw new UsageError('agent needs --server URL (or STATUSBOT_SERVER): the statusbot server to report to');
    if (!/^https?:\/\/[^/]/i.test(server)) throw new UsageError(`--server must be an http:// or https:// URL, not "${server}"`);
    if (!token) throw new UsageError('agent needs --token T (or STATUSBOT_AGENT_TOKEN): statusbot key create --agent --region NAME issues one');
    if (!rawRegion) throw new UsageError('agent needs --region NAME: the region it probes from, as its token names it');
    const region = parseInput(regionName, rawRegion, 'body', 'region');
    const probes = configOf(input.configFile)?.config.probes;
    const logger = commandLogger(input).child({ region });
    const stop = new AbortController();
    // Every probe under way listens to it at once: thousands, not a leak.
    setMaxListeners(0, stop.signal);
    const userAgent = `${USER_AGENT} (agent; region ${region})`;
    const client = createProbeClient({
      timeoutMs: probes?.timeoutMs ?? 10_000,
      blockPrivateTargets: input.flag('block-private-targets') || (probes?.blockPrivateTargets ?? false),
      userAgent,
      headers: { 'x-statusbot-region': region },
      stop: stop.signal,
    });
    const link = createServerLink({ server, token, userAgent, timeoutMs: SERVER_TIMEOUT_MS });
    const agent = createProbeAgent({ link, client, region, logger, concurrency: probes?.concurrency ?? 1_000 });
    let stopRequested: (signal: NodeJS.Signals) => void = () => {};
    const stopping = new Promise<NodeJS.Signals>((resolve) => (stopRequested = resolve));
    process.on('SIGTERM', stopRequested);
    process.on('SIGINT', stopRequested);
    try {
      await agent.start();
      logger.info(`statusbot agent for region ${region} reporting to ${server}`);
      logger.flush?.();
      const signal = await stopping;
      logger.info(`${signal}: stopping`);
      stop.abort();
      await agent.stop();
      logger.info('stopped', { buffered: agent.buffer.size, dropped: agent.buffer.droppedTotal });
      logger.flush?.();
      return 0;
    } finally {
      process.off('SIGTERM', stopRequested);
      process.off('SIGINT', stopRequested);
      await client.close();
      await link.close();
    }
  },
};
