import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createTask } from 'node-cron';
import type { ScheduledTask } from 'node-cron';
import { takeLease } from '../domain/jobs/leases.js';
import type { Job, JobDeps } from './jobs.js';
import { plural } from '../domain/plural.js';

export interface SchedulerOptions {
  deps: JobDeps;
  jobs: readonly Job[];
  /** Names of jobs turned off by config. */
  disabled?: ReadonlySet<string>;
  /** How long a slot's lease holds; two processes never both run a slot within it. */
  leaseMs?: number;
  /** Called once per run of a slot this process took (metrics). */
  onRun?: (job: string, result: 'ok' | 'failed', durationMs: number) => void;
}

export interface Scheduler {
  start(): void;
  /** Stops taking new runs and waits (at most `timeoutMs`) for the runs under way. */
  stop(timeoutMs?: number): Promise<void>;
  /** Runs a job's slot as the timer would: only if this process takes the slot's lease. True when it ran. */
  runSlot(name: string, at: Date): Promise<boolean>;
  /** Runs one job once, now, under a lease of its own slot; for `statusbot jobs run`: what it did, in a line. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a job may say nothing of what it did
  runOnce(name: string): Promise<string | void>;
}

/**
 * The job table on node-cron: one task per job, never overlapping itself; each
 * scheduled slot runs in the process that takes its lease first.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { deps, jobs } = options;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const holder = randomUUID();
  const tasks: ScheduledTask[] = [];
  const running = new Set<Promise<unknown>>();
  let accepting = false;

  async function runSlot(job: Job, at: Date): Promise<boolean> {
    const run = (async () => {
      if (!(await takeLease(deps.ctx, `${job.name}@${at.toISOString()}`, holder, leaseMs))) return false;
      const started = performance.now();
      const fields = (result: 'ok' | 'failed') => ({ job: job.name, slot: at.toISOString(), result, durationMs: Math.round(performance.now() - started) });
      try {
        const done = await job.run(actingFor(job), at);
        options.onRun?.(job.name, 'ok', performance.now() - started);
        // A run that changed nothing is a debug line: idle jobs every few seconds would fill the log with nothing.
        // Monitors and feeds report nothing here: their findings are logged by themselves.
        const line = done ? `job ${job.name}: ${done.summary}` : `job ${job.name}`;
        if (done && done.changes > 0) deps.logger.info(line, { ...fields('ok'), changes: done.changes });
        else deps.logger.debug(line, fields('ok'));
      } catch (error) {
        options.onRun?.(job.name, 'failed', performance.now() - started);
        deps.logger.error(`job ${job.name} failed`, error, fields('failed'));
      }
      return true;
    })();
    running.add(run);
    try {
      return await run;
    } finally {
      running.delete(run);
    }
  }

  /**
   * What node-cron says goes into statusbot's log, as a JSON line of its own
   * (its default writes colored text to the console). A slot skipped because
   * the job's last run is still under way is expected under load: debug.
   */
  const cronLogger = (job: string) => {
    const fields = { job };
    return {
      info: (message: string) => deps.logger.debug(`job ${job}: ${message}`, fields),
      warn: (message: string) => deps.logger.debug(`job ${job}: ${message}`, fields),
      debug: (message: string | Error) => deps.logger.debug(`job ${job}: ${String(message)}`, fields),
      error: (message: string | Error, error?: Error) =>
        deps.logger.error(`job ${job}: ${message instanceof Error ? message.message : message}`, error ?? message, fields),
    };
  };

  /** What a job changes, it changes as `job:<name>` (the audit trail says so). */
  const actingFor = (job: Job): JobDeps => ({ ...deps, ctx: deps.ctx.actingAs({ actor: `job:${job.name}`, requestId: null }) });

  const jobNamed = (name: string): Job => {
    const job = jobs.find((j) => j.name === name);
    if (!job) throw new Error(`unknown job "${name}"`);
    return job;
  };

  return {
    start() {
      accepting = true;
      for (const job of jobs) {
        if (options.disabled?.has(job.name)) continue;
        const task = createTask(job.schedule, async (context) => (accepting ? runSlot(job, context.date) : false), {
          name: job.name,
          noOverlap: true,
          timezone: 'Etc/UTC',
          suppressMissedWarning: true,
          logger: cronLogger(job.name),
        });
        void task.start();
        tasks.push(task);
      }
    },
    async stop(timeoutMs = 10_000) {
      accepting = false;
      for (const task of tasks.splice(0)) await task.destroy();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
    runSlot: (name, at) => runSlot(jobNamed(name), at),
    async runOnce(name) {
      const job = jobNamed(name);
      const at = deps.ctx.clock.now();
      if (!(await takeLease(deps.ctx, `${job.name}@${at.toISOString()}`, holder, leaseMs))) return 'another process runs this slot';
      if (job.name === 'monitors') {
        await deps.prober.probeAll();
        return `probed ${plural(deps.prober.stats.completed, 'monitor')}`;
      }
      if (job.name === 'feeds') return `read ${plural(await deps.feeds.pollDue(), 'feed')}`;
      return (await job.run(actingFor(job), at))?.summary;
    },
  };
}
