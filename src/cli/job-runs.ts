import { readChatEnv } from '../config/env.js';
import { emptyConfig } from '../config/load-config.js';
import type { Config } from '../config/load-config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { systemClock } from '../domain/clock.js';
import type { Clock } from '../domain/clock.js';
import { createDomainContext } from '../domain/context.js';
import { applySetup } from '../domain/setup/apply-setup.js';
import { feedAddresses } from '../domain/vendors/vendor-feeds.js';
import type { Logger } from '../infrastructure/logger.js';
import { createLogger, logLevelOf } from '../infrastructure/pino-logger.js';
import type { FeedCheck } from '../jobs/feed-poller.js';
import { JOBS } from '../jobs/jobs.js';
import { createScheduler } from '../jobs/scheduler.js';
import { chatOffOf } from '../main/server-context.js';
import { createJobDeps } from '../main.js';

/** Runs one job once against a database, as `serve` would run a slot of it; for `statusbot jobs run`. */
// biome-ignore lint/suspicious/noConfusingVoidType: a job may return nothing, or a line saying what it did
export async function runJobOnce(options: JobRunOptions & { name: string }): Promise<string | void> {
  return withJobDeps(options, (deps) => createScheduler({ deps, jobs: JOBS }).runOnce(options.name));
}

/**
 * Reads the named feeds (or every watched one) of the database once, as the poller would, with the config's
 * ingestion settings and outbound guard, and records nothing: `statusbot feeds check`. The config is not applied.
 */
export async function checkFeeds(options: JobRunOptions & { urlnames: readonly string[] }): Promise<FeedCheck[]> {
  return withJobDeps({ ...options, apply: false }, async (deps) => deps.feeds.check(await feedAddresses(deps.ctx, options.urlnames)));
}

interface JobRunOptions {
  dbPath: string;
  config: Config;
  logger?: Logger;
  clock?: Clock;
  /** Whether the config is applied to the database first (as serve does); a job run does, a check does not. */
  apply?: boolean;
}

/** The config applied to the database, and what jobs run with, for one command's work. */
async function withJobDeps<T>(options: JobRunOptions, work: (deps: ReturnType<typeof createJobDeps>) => Promise<T>): Promise<T> {
  const logger = options.logger ?? createLogger({ level: logLevelOf(process.env.LOG_LEVEL) });
  const { config } = options;
  const db = openDatabase({ path: options.dbPath, poolSize: (options.config ?? emptyConfig()).database.poolSize });
  let deps: ReturnType<typeof createJobDeps> | undefined;
  try {
    await migrateToLatest(db);
    const ctx = createDomainContext({
      db,
      clock: options.clock ?? systemClock,
      publicUrl: config.publicUrl ?? 'http://localhost:8080',
      userReports: config.userReports,
      chatOff: chatOffOf(readChatEnv(process.env)),
    });
    if (options.apply !== false) await applySetup(ctx, config.setup);
    deps = createJobDeps(ctx, config, logger);
    return await work(deps);
  } finally {
    await deps?.close();
    await db.destroy();
  }
}
