import { queueDueDigests } from '../domain/read/digests/board-digest.js';
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
import { DEMO_JOB, JOB_NAMES } from '../config/job-names.js';

/** What every job runs with. */
export interface JobDeps {
  ctx: DomainContext;
  logger: Logger;
  prober: MonitorProber;
  feeds: FeedPoller;
  retentionDays: number;
  outboxRetentionDays: number;
}

/** What a run did: a line saying so, and how many things it changed (none: the run was idle). */
export interface JobReport {
  summary: string;
  changes: number;
}

/** A report of `changes` things, in a line. */
export const report = (changes: number, summary: string): JobReport => ({ summary, changes });

export interface Job {
  name: string;
  /** A node-cron expression (six fields: with seconds), in UTC. */
  schedule: string;
  /** `at` is the slot the run is for: the scheduled time, or now when run by hand. Nothing, or a report, says what it did. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a job may return nothing, or a report of what it did
  run(deps: JobDeps, at: Date): Promise<JobReport | void>;
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
      return report(changes.length, `${plural(changes.length, 'demo incident')} opened or resolved`);
    },
  },
  {
    // Every few seconds: a maintenance starts and ends close to its times, also after a restart.
    name: 'maintenances',
    schedule: '*/5 * * * * *',
    run: async ({ ctx }) => {
      const advanced = await advanceMaintenances(ctx);
      return report(advanced, `${plural(advanced, 'maintenance')} started or completed`);
    },
  },
  {
    name: 'digests',
    schedule: '0 * * * * *',
    run: async ({ ctx }, at) => {
      const queued = await queueDueDigests(ctx, at);
      return report(queued, `${plural(queued, 'digest')} queued`);
    },
  },
  {
    name: 'user-reports',
    schedule: '30 * * * * *',
    run: async ({ ctx }) => {
      const resolved = await resolveQuietUserReports(ctx);
      return report(resolved, `${plural(resolved, 'user-report incident')} resolved`);
    },
  },
  {
    name: 'retention',
    schedule: '0 30 3 * * *',
    run: async ({ ctx, retentionDays }) => {
      const removed = await removeExpiredIncidents(ctx, { retentionDays });
      const leases = await pruneLeases(ctx);
      return report(
        removed.incidents + removed.monitorIncidents + removed.probeHours + leases,
        `removed ${plural(removed.incidents, 'incident')}, ${plural(removed.monitorIncidents, 'monitor incident')}, ${plural(removed.probeHours, 'probe hour')}, ${plural(leases, 'lease')}`,
      );
    },
  },
  {
    name: 'outbox-purge',
    schedule: '0 45 * * * *',
    run: async ({ ctx, outboxRetentionDays }) => {
      const removed = await purgeSentOutbox(ctx, { retentionDays: outboxRetentionDays });
      return report(removed, `removed ${plural(removed, 'sent notification')}`);
    },
  },
];

// One job per name, in the order JOB_NAMES lists them (the names stand alone, for the config and the command line).
if (JOBS.map((j) => j.name).join() !== JOB_NAMES.join()) throw new Error(`the jobs are not those JOB_NAMES lists: ${JOBS.map((j) => j.name).join(', ')}`);
