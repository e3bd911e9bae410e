import type { Config } from '../config/load-config.js';
import { readChatEnv } from '../config/env.js';
import type { ChatEnv } from '../config/env.js';
import type { Db } from '../db/database.js';
import type { ChatPlatform } from '../db/schema.js';
import { systemClock } from '../domain/clock.js';
import type { Clock } from '../domain/clock.js';
import { regionReach, shortQuorumWarnings } from '../domain/companies/region-reach.js';
import { createDomainContext } from '../domain/context.js';
import type { DomainContext } from '../domain/context.js';
import { syncDemoServices } from '../domain/demo/demo-services.js';
import { describeQuorumReach } from '../domain/monitors/quorum-reach.js';
import { describeChanges, describeSuppressed } from '../domain/setup/apply-changes.js';
import { applySetup } from '../domain/setup/apply-setup.js';
import type { Logger } from '../infrastructure/logger.js';
import { createMetrics } from '../metrics/metrics.js';
import type { Metrics } from '../metrics/metrics.js';

/** The platforms off in this process, with what they lack (see DomainContext.chatOff). */
export const chatOffOf = (chatEnv: ChatEnv): Map<ChatPlatform, string> => new Map(Object.entries(chatEnv.off) as [ChatPlatform, string][]);

export interface ServerContextOptions {
  config: Config;
  publicUrl: string;
  clock?: Clock;
  env: NodeJS.ProcessEnv;
  chatOff?: ReadonlyMap<ChatPlatform, string>;
  metrics?: (metrics: Metrics) => Metrics;
}

/** What a server's parts share: the domain's context over the database, the metrics' registry, the chat credentials. */
export function createServerContext(db: Db, logger: Logger, options: ServerContextOptions): { ctx: DomainContext; metrics: Metrics; chatEnv: ChatEnv } {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const created = createMetrics({ db, now: () => clock.now(), logger });
  const metrics = options.metrics ? options.metrics(created) : created;
  const chatEnv = readChatEnv(options.env);
  const ctx = createDomainContext({
    db,
    clock,
    publicUrl: options.publicUrl,
    userReports: config.userReports,
    chatOff: options.chatOff ?? chatOffOf(chatEnv),
    onWriteBatch: metrics.writeBatch,
    // Once per change, not per probe: a quorum out of reach means the monitor can never go down.
    onQuorumReach: (c) => {
      const fields = { monitorId: c.monitorId, live: c.live, quorum: c.quorum };
      if (c.inReach) logger.info(describeQuorumReach(c), fields);
      else logger.warn(describeQuorumReach(c), fields);
    },
  });
  return { ctx, metrics, chatEnv };
}

/** The config is the operator's, applied by `statusbot serve`: what it changed is logged, and what it cannot reach. */
export async function applyServerConfig(ctx: DomainContext, config: Config, logger: Logger): Promise<void> {
  const applied = await applySetup(ctx.actingAs({ actor: 'cli', requestId: null }), config.setup);
  const changes = Object.fromEntries(applied.changes.map(({ kind, ...counts }) => [kind[1], counts]));
  logger.info(`config applied: ${describeChanges(applied.changes)}`, { changes });
  for (const line of describeSuppressed(applied.suppressed)) logger.info(line);
  for (const line of shortQuorumWarnings(await regionReach(ctx), 'held')) logger.warn(line);
  if (config.setup.demo) await syncDemoServices(ctx);
}
