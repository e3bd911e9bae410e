import { queueDueDigests } from '../domain/boards/board-digest.js';
import type { DomainContext } from '../domain/context.js';
import { syncDemoServices } from '../domain/demo/demo-services.js';
import { advanceMaintenances } from '../domain/maintenances/maintenance-lifecycle.js';
import { pruneLeases } from '../domain/jobs/leases.js';
import { removeExpiredIncidents } from '../domain/retention.js';
import { purgeSentOutbox } from '../delivery/outbox-purge.js';
import { resolveQuietUserReports } from '../domain/vendors/user-reports.js';
import type { Logger } from '../infrastructure/logger.js';
import type { FeedPoller } from './feed-poller.js';
import type { MonitorProber } from './monitor-prober.js';
import { plural } from '../domain/plural.js';
import { DEMO_JOB, JOB_NAMES } from './job-names.js';

/** What every job runs with. */
export interface JobDeps {
  ctx: DomainContext;
  logger: Logger;
  prober: MonitorProber;
  feeds: FeedPoller;
  retentionDays: number;
  outboxRetentionDays: number;
}

export interface Job {
  name: string;
  /** A node-cron expression (six fields: with seconds), in UTC. */
  schedule: string;
  /** `at` is the slot the run is for: the scheduled time, or now when run by hand. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a job may return nothing, or a line saying what it did
  run(deps: JobDeps, at: Date): Promise<string | void>;
}

/** The job that cycles the demo services; off with `demo: false`. */
/** The jobs that `serve` runs; config `jobs.<name>.enabled: false` turns one off. */
export const JOBS: readonly Job[] = [
  {
    name: 'monitors',
    schedule: '* * * * * *',
    run: async ({ prober }, at) => {
      await prober.tick(at);
    },
  },
  {
    name: 'feeds',
    schedule: '* * * * * *',
    run: async ({ feeds }) => {
      await feeds.tick();
    },
  },
  {
    name: DEMO_JOB,
    schedule: '1 */5 * * * *',
    run: async ({ ctx }) => {
      const changes = await syncDemoServices(ctx);
      return `${plural(changes.length, 'demo incident')} opened or resolved`;
    },
  },
  {
    // Every few seconds: a maintenance starts and ends close to its times, also after a restart.
    name: 'maintenances',
    schedule: '*/5 * * * * *',
    run: async ({ ctx }) => `${plural(await advanceMaintenances(ctx), 'maintenance')} started or completed`,
  },
  {
    name: 'digests',
    schedule: '0 * * * * *',
    run: async ({ ctx }, at) => `${plural(await queueDueDigests(ctx, at), 'digest')} queued`,
  },
  {
    name: 'user-reports',
    schedule: '30 * * * * *',
    run: async ({ ctx }) => `${plural(await resolveQuietUserReports(ctx), 'user-report incident')} resolved`,
  },
  {
    name: 'retention',
    schedule: '0 30 3 * * *',
    run: async ({ ctx, retentionDays }) => {
      const removed = await removeExpiredIncidents(ctx, { retentionDays });
      const leases = await pruneLeases(ctx);
      return `removed ${plural(removed.incidents, 'incident')}, ${plural(removed.monitorIncidents, 'monitor incident')}, ${plural(removed.probeHours, 'probe hour')}, ${plural(leases, 'lease')}`;
    },
  },
  {
    name: 'outbox-purge',
    schedule: '0 45 * * * *',
    run: async ({ ctx, outboxRetentionDays }) => `removed ${plural(await purgeSentOutbox(ctx, { retentionDays: outboxRetentionDays }), 'sent notification')}`,
  },
];

// One job per name, in the order JOB_NAMES lists them (the names stand alone, for the config and the command line).
if (JOBS.map((j) => j.name).join() !== JOB_NAMES.join()) throw new Error(`the jobs are not those JOB_NAMES lists: ${JOBS.map((j) => j.name).join(', ')}`);
