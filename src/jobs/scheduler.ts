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

/** A scheduler's state: its options, who it is to the leases, its tasks and the runs under way. */
interface Slots {
  options: SchedulerOptions;
  leaseMs: number;
  holder: string;
  tasks: ScheduledTask[];
  running: Set<Promise<unknown>>;
  accepting: boolean;
}

/**
 * The job table on node-cron: one task per job, never overlapping itself; each
 * scheduled slot runs in the process that takes its lease first.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const s: Slots = { options, leaseMs: options.leaseMs ?? 10 * 60_000, holder: randomUUID(), tasks: [], running: new Set(), accepting: false };
  return {
    start: () => start(s),
    stop: (timeoutMs = 10_000) => stop(s, timeoutMs),
    runSlot: (name, at) => runSlot(s, jobNamed(s, name), at),
    runOnce: (name) => runOnce(s, name),
  };
}

function start(s: Slots): void {
  s.accepting = true;
  for (const job of s.options.jobs) {
    if (s.options.disabled?.has(job.name)) continue;
    const task = createTask(job.schedule, async (context) => (s.accepting ? runSlot(s, job, context.date) : false), {
      name: job.name,
      noOverlap: true,
      timezone: 'Etc/UTC',
      suppressMissedWarning: true,
      logger: cronLogger(s.options.deps, job.name),
    });
    void task.start();
    s.tasks.push(task);
  }
}

async function stop(s: Slots, timeoutMs: number): Promise<void> {
  s.accepting = false;
  for (const task of s.tasks.splice(0)) await task.destroy();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...s.running]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

async function runSlot(s: Slots, job: Job, at: Date): Promise<boolean> {
  const run = runIfTaken(s, job, at);
  s.running.add(run);
  try {
    return await run;
  } finally {
    s.running.delete(run);
  }
}

/** Runs the slot if this process takes its lease, and logs what the run did. */
async function runIfTaken(s: Slots, job: Job, at: Date): Promise<boolean> {
  const { deps } = s.options;
  if (!(await takeLease(deps.ctx, `${job.name}@${at.toISOString()}`, s.holder, s.leaseMs))) return false;
  const started = performance.now();
  const fields = (result: 'ok' | 'failed') => ({ job: job.name, slot: at.toISOString(), result, durationMs: Math.round(performance.now() - started) });
  try {
    const done = await job.run(actingFor(deps, job), at);
    s.options.onRun?.(job.name, 'ok', performance.now() - started);
    // A run that changed nothing is a debug line: idle jobs every few seconds would fill the log with nothing.
    // Monitors and feeds report nothing here: their findings are logged by themselves.
    const line = done ? `job ${job.name}: ${done.summary}` : `job ${job.name}`;
    if (done && done.changes > 0) deps.logger.info(line, { ...fields('ok'), changes: done.changes });
    else deps.logger.debug(line, fields('ok'));
  } catch (error) {
    s.options.onRun?.(job.name, 'failed', performance.now() - started);
    deps.logger.error(`job ${job.name} failed`, error, fields('failed'));
  }
  return true;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a job may say nothing of what it did
async function runOnce(s: Slots, name: string): Promise<string | void> {
  const { deps } = s.options;
  const job = jobNamed(s, name);
  const at = deps.ctx.clock.now();
  if (!(await takeLease(deps.ctx, `${job.name}@${at.toISOString()}`, s.holder, s.leaseMs))) return 'another process runs this slot';
  if (job.name === 'monitors') {
    await deps.prober.probeAll();
    return `probed ${plural(deps.prober.stats.completed, 'monitor')}`;
  }
  if (job.name === 'feeds') return `read ${plural(await deps.feeds.pollDue(), 'feed')}`;
  return (await job.run(actingFor(deps, job), at))?.summary;
}

/**
 * What node-cron says goes into statusbot's log, as a JSON line of its own
 * (its default writes colored text to the console). A slot skipped because
 * the job's last run is still under way is expected under load: debug.
 */
function cronLogger(deps: JobDeps, job: string) {
  const fields = { job };
  return {
    info: (message: string) => deps.logger.debug(`job ${job}: ${message}`, fields),
    warn: (message: string) => deps.logger.debug(`job ${job}: ${message}`, fields),
    debug: (message: string | Error) => deps.logger.debug(`job ${job}: ${String(message)}`, fields),
    error: (message: string | Error, error?: Error) =>
      deps.logger.error(`job ${job}: ${message instanceof Error ? message.message : message}`, error ?? message, fields),
  };
}

/** What a job changes, it changes as `job:<name>` (the audit trail says so). */
const actingFor = (deps: JobDeps, job: Job): JobDeps => ({ ...deps, ctx: deps.ctx.actingAs({ actor: `job:${job.name}`, requestId: null }) });

function jobNamed(s: Slots, name: string): Job {
  const job = s.options.jobs.find((j) => j.name === name);
  if (!job) throw new Error(`unknown job "${name}"`);
  return job;
}
