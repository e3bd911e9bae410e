import { setMaxListeners } from 'node:events';
import { createProbeAgent } from '../agent/probe-agent.js';
import { createServerLink } from '../agent/server-link.js';
import { regionName } from '../domain/companies/agent-keys.js';
import { parseInput } from '../domain/validation.js';
import { createProbeClient } from '../probes/probe-client.js';
import { USER_AGENT } from '../main.js';
import { UsageError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { CommandInput } from './command.js';
import { configOf } from './config-access.js';

/** How long one request to the server may take. */
const SERVER_TIMEOUT_MS = 10_000;

/** `statusbot agent`, as commands.ts describes it. */
export async function runAgent(input: CommandInput): Promise<number> {
  const server = input.string('server') ?? input.env.STATUSBOT_SERVER;
  const token = input.string('token') ?? input.env.STATUSBOT_AGENT_TOKEN;
  const rawRegion = input.string('region');
  if (!server) throw new UsageError('agent needs --server URL (or STATUSBOT_SERVER): the statusbot server to report to');
  if (!/^https?:\/\/[^/]/i.test(server)) throw new UsageError(`--server must be an http:// or https:// URL, not "${server}"`);
  if (!token) throw new UsageError('agent needs --token T (or STATUSBOT_AGENT_TOKEN): statusbot key create --agent --region NAME issues one');
  if (!rawRegion) throw new UsageError('agent needs --region NAME: the region it probes from, as its token names it');
  const region = parseInput(regionName, rawRegion, 'body', 'region');
  const probes = configOf(input.configFile, input.env)?.config.probes;
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
}
