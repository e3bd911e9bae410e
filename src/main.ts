import { setMaxListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { ChatFront } from '../adapters/chat/chat-front.js';
import { emptyConfig } from './config/load-config.js';
import type { Config } from './config/load-config.js';
import { openDatabase } from './db/database.js';
import type { Db } from './db/database.js';
import type { ChatPlatform } from './db/schema.js';
import { createOutboxWorker } from './delivery/outbox-worker.js';
import { createPublishers } from './delivery/publisher-kinds.js';
import type { OutboxWorker, OutboxWorkerOptions } from './delivery/outbox-worker.js';
import type { Clock } from './domain/clock.js';
import type { DomainContext } from './domain/context.js';
import { seedDemoCompany } from './domain/setup/demo-setup.js';
import { emailSubscriberCount } from './domain/status-pages/subscriptions.js';
import type { FinishedRequest } from './http/request-trace.js';
import { createClientAddress } from './infrastructure/client-address.js';
import type { Logger } from './infrastructure/logger.js';
import { createOutboundDispatcher } from './infrastructure/outbound.js';
import { createLogger, logLevelOf } from './infrastructure/pino-logger.js';
import { createFeedPoller } from './jobs/feed-poller.js';
import type { FeedPoller } from './jobs/feed-poller.js';
import { createProbeClient } from './probes/probe-client.js';
import { JOBS } from './jobs/jobs.js';
import type { JobDeps } from './jobs/jobs.js';
import { createMonitorProber } from './jobs/monitor-prober.js';
import type { MonitorProber } from './jobs/monitor-prober.js';
import { createScheduler } from './jobs/scheduler.js';
import type { Scheduler } from './jobs/scheduler.js';
import { createChatFronts } from './main/chat-fronts.js';
import { createHttpFront, listen } from './main/http-front.js';
import type { HttpFront } from './main/http-front.js';
import { prepareDatabase } from './main/prepare-database.js';
import { applyServerConfig, createServerContext } from './main/server-context.js';
import { createStopTracker, stopServer } from './main/server-stop.js';
import { announceStart, listeningUrl, printNotice } from './main/start-notices.js';
import type { Notice } from './main/start-notices.js';
import type { Metrics } from './metrics/metrics.js';

export type { Notice } from './main/start-notices.js';

export const USER_AGENT = 'statusbot-monitor/0.1';
export const FEED_USER_AGENT = 'statusbot-feeds/0.1';

export interface StartOptions {
  dbPath: string;
  /** 0 picks a free port. */
  port: number;
  /** The address to listen on (default 0.0.0.0, every IPv4 address). */
  host?: string;
  config?: Config;
  clock?: Clock;
  logger?: Logger;
  /**
   * What the start tells the operator (the demo key, shown once, never enters the log): the lines for a
   * terminal, and the same as the fields of one JSON line for a log; default the text on stdout.
   */
  notice?: (text: string, fields: Notice) => void;
  /** Where chat credentials come from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The chat platforms that count as off (default: those `env` lacks credentials for); tests that read queued rows without a platform's fake set none. */
  chatOff?: ReadonlyMap<ChatPlatform, string>;
  /** Outbox delivery settings; `enabled: false` leaves rows pending (for tests that inspect them). */
  delivery?: Partial<Pick<OutboxWorkerOptions, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'pollMs' | 'leaseMs' | 'deadlineMs'>> & {
    enabled?: boolean;
  };
  /** Wraps the server's metrics hooks, e.g. to count only some of what happens; the registry is the server's own. */
  metrics?: (metrics: Metrics) => Metrics;
  /** Called once per HTTP request, after its log line. */
  onRequestFinished?: (finished: FinishedRequest) => void;
  /** The job scheduler (monitor probes, demo cycle, digests, retention); on unless false. */
  jobs?: boolean;
}

export interface RunningServer {
  /** The base URL the server answers on, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  ctx: DomainContext;
  /** The demo company's key when this start created it. */
  demoKey: string | null;
  worker: OutboxWorker;
  fronts: readonly ChatFront[];
  scheduler: Scheduler;
  prober: MonitorProber;
  feeds: FeedPoller;
  /**
   * Stops: no new work, work under way gets STOP_GRACE_MS to finish, then what
   * is left is dropped (nothing of it recorded, claimed rows given back), and the
   * database closes. Each part is bounded but the database's own close.
   */
  close(): Promise<void>;
  /** While `close` runs: the parts not yet stopped (e.g. "outbox deliveries"), for a stop that overruns. */
  stillRunning(): string[];
}

/** What jobs run with, from the config: the monitor prober and the feed poller on their outbound pools. */
export function createJobDeps(ctx: DomainContext, config: Config, logger: Logger, metrics?: Metrics, stop?: AbortSignal): JobDeps & { close(): Promise<void> } {
  const probeClient = createProbeClient({
    timeoutMs: config.probes.timeoutMs,
    blockPrivateTargets: config.probes.blockPrivateTargets,
    userAgent: USER_AGENT,
    ...(stop ? { stop } : {}),
  });
  const prober = createMonitorProber({
    ctx: ctx.actingAs({ actor: 'job:monitors', requestId: null }),
    client: probeClient,
    region: config.region,
    logger,
    concurrency: config.probes.concurrency,
    onProbe: metrics?.probed,
  });
  const feeds = createFeedPoller({
    ctx: ctx.actingAs({ actor: 'job:feeds', requestId: null }),
    logger,
    intervalMs: config.ingestion.intervalMs,
    timeoutMs: config.ingestion.timeoutMs,
    concurrency: config.ingestion.concurrency,
    blockPrivateTargets: config.probes.blockPrivateTargets,
    userAgent: FEED_USER_AGENT,
    onFetch: metrics?.feedFetched,
    ...(stop ? { stop } : {}),
  });
  return {
    ctx,
    logger,
    prober,
    feeds,
    retentionDays: config.retentionDays,
    outboxRetentionDays: config.outbox.retentionDays,
    async close() {
      await prober.idle();
      await prober.flush();
      await probeClient.close();
      await feeds.idle();
      await feeds.close();
    },
  };
}

/** The composition root: database, migrations, config, chat fronts, delivery, jobs, HTTP listener, in that order. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger({ level: logLevelOf(env.LOG_LEVEL) });
  const config = options.config ?? emptyConfig();
  const db: Db = openDatabase({ path: options.dbPath, poolSize: config.database.poolSize });
  let http: HttpFront | undefined;
  // Fired STOP_GRACE_MS into a stop: every outbound request and chat connection under way ends.
  const stop = new AbortController();
  // Every probe, feed read and delivery under way listens to it at once: thousands, not a leak.
  setMaxListeners(0, stop.signal);
  try {
    await prepareDatabase(db, logger);
    const publicUrl = config.publicUrl ?? `http://localhost:${options.port === 0 ? 8080 : options.port}`;
    const { ctx, metrics, chatEnv } = createServerContext(db, logger, { ...options, config, publicUrl, env });
    await applyServerConfig(ctx, config, logger);
    // One reading of X-Forwarded-For for every limit by address: the API's, the status pages', the chat fronts'.
    const clientAddress = createClientAddress(config.http.trustProxy);
    const fronts = await createChatFronts(ctx, chatEnv, logger, { clientAddress, rateLimit: config.chat.rateLimit });
    const delivery = await createDelivery({ ctx, config, logger, metrics, fronts, stop: stop.signal, settings: options.delivery });
    const jobDeps = createJobDeps(ctx, config, logger, metrics, stop.signal);
    const scheduler = createScheduler({ deps: jobDeps, jobs: JOBS, disabled: config.disabledJobs, onRun: metrics.jobRan });
    http = createHttpFront({
      ctx,
      db,
      config,
      logger,
      metrics,
      clientAddress,
      fronts,
      chat: { slack: chatEnv.slack !== null, discord: chatEnv.discord !== null },
      jobs: options.jobs !== false,
      onRequestFinished: options.onRequestFinished,
    });
    const { server } = http;
    await listen(server, options.port, options.host ?? '0.0.0.0');
    // Only once the port is ours: a start that cannot listen must not make the demo key that it never shows.
    const demo = config.setup.demo && config.setup.companies.length === 0 ? await seedDemoCompany(ctx) : null;
    const demoKey = demo?.created ? demo.key : null;
    http.settleDemoKey(demoKey);
    await startWork({ ctx, fronts, scheduler, worker: delivery.worker }, { jobs: options.jobs !== false, delivery: options.delivery?.enabled !== false });
    http.markReady();
    const stopping = createStopTracker();
    const bound = server.address() as AddressInfo;
    const url = listeningUrl(bound);
    const { dbPath } = options;
    await announceStart({
      ctx,
      logger,
      notice: options.notice ?? printNotice,
      bound,
      url,
      publicUrl: config.publicUrl,
      demoOn: config.setup.demo,
      dbPath,
      demo,
    });
    const parts = { server, stop, ctx, db, logger, fronts, scheduler, jobDeps, ...delivery };
    const { prober, feeds } = jobDeps;
    return {
      url,
      port: bound.port,
      ctx,
      demoKey,
      worker: delivery.worker,
      fronts,
      scheduler,
      prober,
      feeds,
      close: () => stopServer(parts, stopping),
      stillRunning: () => stopping.pending(),
    };
  } catch (error) {
    http?.settleDemoKey(null);
    http?.server.close();
    await db.destroy();
    throw error;
  }
}

/** The chat fronts connect, the scheduler runs its jobs, the worker delivers (each unless switched off). */
async function startWork(
  parts: { ctx: DomainContext; fronts: readonly ChatFront[]; scheduler: Scheduler; worker: OutboxWorker },
  on: { jobs: boolean; delivery: boolean },
): Promise<void> {
  for (const front of parts.fronts) await front.start();
  if (on.jobs) parts.scheduler.start();
  if (on.delivery) {
    parts.ctx.afterCommit.add(parts.worker.wake);
    parts.worker.start();
  }
}

interface DeliveryOptions {
  ctx: DomainContext;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  fronts: readonly ChatFront[];
  stop: AbortSignal;
  settings: StartOptions['delivery'];
}

/** The outbox worker with a publisher for every destination kind, and the outbound pool and publishers (mail's transport) the stop closes. */
async function createDelivery(options: DeliveryOptions) {
  const { ctx, config, logger, metrics, fronts, stop } = options;
  // Webhook addresses come from the config: they pass the same guard as monitors and feeds.
  const webhooks = createOutboundDispatcher({
    timeoutMs: config.probes.timeoutMs,
    blockPrivateTargets: config.probes.blockPrivateTargets,
    followRedirects: false,
  });
  // One publisher per destination kind (delivery/publisher-kinds.ts); without smtp, mail to status page
  // subscribers waits in the outbox until it is configured.
  const publishers = createPublishers({
    ctx,
    dispatcher: webhooks.dispatcher,
    timeoutMs: config.probes.timeoutMs,
    stop,
    limits: config.outbox.perDestination,
    smtp: config.smtp ?? null,
    unreachableDelay: { firstMs: options.settings?.baseDelayMs ?? 1_000, maxMs: options.settings?.maxDelayMs ?? 15 * 60_000 },
    chat: fronts.map((f) => f.publisher),
  });
  if (!config.smtp && (await emailSubscriberCount(ctx)) > 0) {
    logger.info('Status pages have email subscribers, but no smtp is configured: their mail waits in the outbox until it is.');
  }
  const worker = createOutboxWorker({
    ctx,
    logger,
    publishers,
    onDelivered: metrics.delivered,
    stop,
    concurrency: config.outbox.concurrency,
    ...options.settings,
  });
  return { worker, webhooks, publishers };
}
