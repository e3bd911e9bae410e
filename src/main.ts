import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { emptyConfig } from './config/load-config.js';
import type { Config } from './config/load-config.js';
import { openDatabase, databaseLabel } from './db/database.js';
import { isPostgresUrl } from './db/database-url.js';
import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { waitWhileConnectionsRefused } from './db/connection-refusal.js';
import { systemClock } from './domain/clock.js';
import type { Clock } from './domain/clock.js';
import { writeKeyUses } from './domain/companies/api-keys.js';
import { createDomainContext } from './domain/context.js';
import { syncDemoServices } from './domain/demo/demo-services.js';
import type { DomainContext } from './domain/context.js';
import { describeChanges, describeSuppressed } from './domain/setup/apply-changes.js';
import { applySetup } from './domain/setup/apply-setup.js';
import { feedAddresses } from './domain/vendors/vendor-feeds.js';
import { describeQuorumReach } from './domain/monitors/quorum-reach.js';
import { regionReach, shortQuorumWarnings } from './domain/companies/region-reach.js';
import { DEMO_BOARD_ID, demoTour } from './domain/demo/demo-company.js';
import { seedDemoCompany } from './domain/setup/demo-setup.js';
import { createClientAddress } from './infrastructure/client-address.js';
import { createHttpServer } from './http/server.js';
import { createMetricsEndpoint } from './http/metrics-endpoint.js';
import { createMetrics } from './metrics/metrics.js';
import type { Metrics } from './metrics/metrics.js';
import { publicRoutes } from './http/pages/public-routes.js';
import { homeRoutes } from './http/pages/home-routes.js';
import { API_DOCS_PATH } from './http/api-docs.js';
import type { FinishedRequest } from './http/request-trace.js';
import type { Logger } from './infrastructure/logger.js';
import { createLogger, logLevelOf } from './infrastructure/pino-logger.js';
import type { RawHandler } from './infrastructure/raw-handler.js';
import type { ChatFront } from '../adapters/chat/chat-front.js';
import { readChatEnv } from './config/env.js';
import type { ChatEnv } from './config/env.js';
import type { ChatPlatform } from './db/schema.js';
import { createOutboxWorker } from './delivery/outbox-worker.js';
import type { OutboxWorker, OutboxWorkerOptions } from './delivery/outbox-worker.js';
import { createPublishers } from './delivery/publisher-kinds.js';
import { emailSubscriberCount } from './domain/status-pages/subscriptions.js';
import { createOutboundDispatcher } from './infrastructure/outbound.js';
import { createFeedPoller } from './jobs/feed-poller.js';
import type { FeedCheck, FeedPoller } from './jobs/feed-poller.js';
import { createProbeClient } from './probes/probe-client.js';
import { JOBS } from './jobs/jobs.js';
import { createMonitorProber } from './jobs/monitor-prober.js';
import type { JobDeps } from './jobs/jobs.js';
import type { MonitorProber } from './jobs/monitor-prober.js';
import { createScheduler } from './jobs/scheduler.js';
import type { Scheduler } from './jobs/scheduler.js';
import { STOP_GRACE_MS } from './stop-times.js';

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

/** How long dropped work may take to give back what it claimed. */
const DROP_GRACE_MS = 2_000;

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

/** Where the start writes what is meant for the operator's eyes, not the log: the demo key, how to get a key. */
/** The platforms off in this process, with what they lack (see DomainContext.chatOff). */
const chatOffOf = (chatEnv: ChatEnv): Map<ChatPlatform, string> => new Map(Object.entries(chatEnv.off) as [ChatPlatform, string][]);

const printNotice = (text: string): void => void process.stdout.write(`${text}\n`);

/** A notice as the fields of a log line: its `msg`, and what it names (home, api_docs, demo_api_key…). */
export type Notice = { msg: string } & Record<string, string>;

/** The composition root: database, migrations, config, HTTP listener. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: logLevelOf((options.env ?? process.env).LOG_LEVEL) });
  const notice = options.notice ?? printNotice;
  const config = options.config ?? emptyConfig();
  const db: Db = openDatabase({ path: options.dbPath, poolSize: (options.config ?? emptyConfig()).database.poolSize });
  let server: Server | undefined;
  // The home shows the demo's key only once this start has made it (or not).
  let settleDemoKey: (key: string | null) => void = () => {};
  // Fired STOP_GRACE_MS into a stop: every outbound request and chat connection under way ends.
  const stop = new AbortController();
  // Every probe, feed read and delivery under way listens to it at once: thousands, not a leak.
  setMaxListeners(0, stop.signal);
  try {
    // A replica that starts while PostgreSQL refuses connections (all taken, or starting up) waits for one, saying why.
    await waitWhileConnectionsRefused(db, {
      onRefused: (reason, retryInMs) =>
        logger.warn(`the database refuses connections for now (${reason}); trying again in ${retryInMs / 1000} s`, { retryInMs }),
    });
    const migrated = (await migrateToLatest(db)).applied;
    if (migrated.length > 0) logger.info(`applied migrations ${migrated.join(', ')}`, { migrations: migrated });
    const port = options.port;
    const publicUrl = config.publicUrl ?? `http://localhost:${port === 0 ? 8080 : port}`;
    const clock = options.clock ?? systemClock;
    const created = createMetrics({ db, now: () => clock.now(), logger });
    const metrics = options.metrics ? options.metrics(created) : created;
    const chatEnv = readChatEnv(options.env ?? process.env);
    const ctx = createDomainContext({
      db,
      clock,
      publicUrl,
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
    // The config is the operator's, applied by `statusbot serve`.
    const applied = await applySetup(ctx.actingAs({ actor: 'cli', requestId: null }), config.setup);
    const changes = Object.fromEntries(applied.changes.map(({ kind, ...counts }) => [kind[1], counts]));
    logger.info(`config applied: ${describeChanges(applied.changes)}`, { changes });
    for (const line of describeSuppressed(applied.suppressed)) logger.info(line);
    for (const line of shortQuorumWarnings(await regionReach(ctx), 'held')) logger.warn(line);
    if (config.setup.demo) await syncDemoServices(ctx);

    for (const note of chatEnv.notes) logger.info(note);
    const fronts: ChatFront[] = [];
    // One reading of X-Forwarded-For for every limit by address: the API's, the status pages', the chat fronts'.
    const clientAddress = createClientAddress(config.http.trustProxy);
    const chatGuards = { clientAddress, rateLimit: config.chat.rateLimit };
    // Loaded only when configured: the chat libraries weigh tens of MB of memory.
    if (chatEnv.slack) {
      const { createSlackFront } = await import('../adapters/slack/app.js');
      fronts.push(await createSlackFront({ ctx, env: chatEnv.slack, logger, ...chatGuards }));
    }
    if (chatEnv.discord) {
      const { createDiscordFront } = await import('../adapters/discord/app.js');
      fronts.push(await createDiscordFront({ ctx, env: chatEnv.discord, logger, ...chatGuards }));
    }
    // Webhook addresses come from the config: they pass the same guard as monitors and feeds.
    const webhooks = createOutboundDispatcher({
      timeoutMs: config.probes.timeoutMs,
      blockPrivateTargets: config.probes.blockPrivateTargets,
      followRedirects: false,
    });
    // Pagers and chat APIs are reached the same way: their addresses come from the config too.
    const publishers = createPublishers({
      ctx,
      dispatcher: webhooks.dispatcher,
      timeoutMs: config.probes.timeoutMs,
      stop: stop.signal,
      limits: config.outbox.perDestination,
      smtp: config.smtp ?? null,
      unreachableDelay: { firstMs: options.delivery?.baseDelayMs ?? 1_000, maxMs: options.delivery?.maxDelayMs ?? 15 * 60_000 },
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
      stop: stop.signal,
      concurrency: config.outbox.concurrency,
      ...options.delivery,
    });

    const jobDeps = createJobDeps(ctx, config, logger, metrics, stop.signal);
    const { prober, feeds } = jobDeps;
    const scheduler = createScheduler({ deps: jobDeps, jobs: JOBS, disabled: config.disabledJobs, onRun: metrics.jobRan });

    let ready = false;
    const home = {
      demo: config.setup.demo,
      demoKey: new Promise<string | null>((resolve) => (settleDemoKey = resolve)),
      chat: { slack: chatEnv.slack !== null, discord: chatEnv.discord !== null },
      feeds: { read: options.jobs !== false && !config.disabledJobs.has('feeds'), intervalSeconds: config.ingestion.intervalMs / 1000 },
    };
    server = createHttpServer({
      ctx,
      logger,
      rateLimitPerMinute: config.rateLimitPerMinute,
      clientAddress,
      ready: () => ready,
      rawHandlers: Object.assign({}, ...fronts.map((f) => f.rawHandlers)) as Record<string, RawHandler>,
      publicRoutes: [...homeRoutes(home), ...publicRoutes],
      onPageRendered: metrics.pageRendered,
      onFinished: requestObservers(metrics.requestFinished, options.onRequestFinished),
      metrics: createMetricsEndpoint({ registry: metrics.registry, token: config.metrics.token }),
      region: config.region,
    });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, options.host ?? '0.0.0.0', () => {
        listening.off('error', reject);
        resolve();
      });
    });
    // Only once the port is ours: a start that cannot listen must not make the demo key that it never shows.
    const demo = config.setup.demo && config.setup.companies.length === 0 ? await seedDemoCompany(ctx) : null;
    const demoKey = demo?.created ? demo.key : null;
    settleDemoKey(demoKey);
    for (const front of fronts) await front.start();
    if (options.jobs !== false) scheduler.start();
    if (options.delivery?.enabled !== false) {
      ctx.afterCommit.add(worker.wake);
      worker.start();
    }
    ready = true;
    const stopping = stopTracker();
    const bound = listening.address() as AddressInfo;
    const actualPort = bound.port;
    const every = bound.address === '0.0.0.0' || bound.address === '::';
    const address = (a: string) => (a.includes(':') ? `[${a}]` : a);
    const url = `http://${every ? 'localhost' : address(bound.address)}:${actualPort}`;
    const reach = every ? `every ${bound.address === '::' ? '' : 'IPv4 '}address of this machine; ` : '';
    // Read before the start says it listens: once it has, the start is done and a stop has no start to wait for.
    const whereToClick = await startLines(ctx, config.publicUrl ?? url, config.setup.demo);
    logger.info(`statusbot listening on http://${address(bound.address)}:${actualPort} (${reach}database ${databaseLabel(options.dbPath)})`);
    logger.flush?.();
    notice(whereToClick.text, whereToClick.fields);
    if (demo && !demo.created) {
      const hint = keyHint(demo.companies, options.dbPath);
      notice(hint.join('\n'), { msg: hint.map((l) => l.trim()).join(' '), command: hint[1]!.trim() });
    }
    if (demoKey) {
      const intro = 'Created the demo company "Demo". Its API key, shown this once:';
      const curl = `curl -s -H "Authorization: Bearer ${demoKey}" ${url}/api/v2/boards/${DEMO_BOARD_ID}`;
      notice(['', intro, `  ${demoKey}`, 'Try:', `  ${curl}`, ''].join('\n'), {
        msg: `${intro.slice(0, -1)} in demo_api_key`,
        demo_api_key: demoKey,
        try: curl,
      });
    }
    return {
      url,
      port: actualPort,
      ctx,
      demoKey,
      worker,
      fronts,
      scheduler,
      prober,
      feeds,
      close: async () => {
        const grace = setTimeout(() => stop.abort(), STOP_GRACE_MS);
        // Requests under way finish within the grace; a connection still open then is cut.
        stop.signal.addEventListener('abort', () => listening.closeAllConnections(), { once: true });
        const requests = new Promise<void>((resolve) => listening.close(() => resolve()));
        listening.closeIdleConnections();
        ctx.afterCommit.delete(worker.wake);
        try {
          // New work stops first (the scheduler, chat connections); work under way finishes or is dropped at the grace.
          await Promise.all([
            stopping.track('chat connections', Promise.all(fronts.map((front) => front.stop()))),
            stopping.track(
              'jobs',
              scheduler.stop(STOP_GRACE_MS + DROP_GRACE_MS).then(() => jobDeps.close()),
            ),
            stopping.track(
              'outbox deliveries',
              worker.stop().then(() => webhooks.close()),
            ),
            stopping.track('HTTP requests', requests),
          ]);
          for (const publisher of publishers) publisher.close?.();
        } finally {
          clearTimeout(grace);
        }
        // When each key was last used, kept in memory for up to a minute: written before the database closes.
        await stopping.track(
          'database',
          writeKeyUses(ctx)
            .catch((error: unknown) => logger.error('the last use of API keys could not be written', error))
            .then(() => db.destroy()),
        );
      },
      stillRunning: () => stopping.pending(),
    };
  } catch (error) {
    settleDemoKey(null);
    server?.close();
    await db.destroy();
    throw error;
  }
}

/** Where to click, for the operator: the home, the demo's page while the demo runs, the API's reference. */
async function startLines(ctx: DomainContext, base: string, demoOn: boolean): Promise<{ text: string; fields: Notice }> {
  const at = base.replace(/\/+$/, '');
  const page = demoOn ? (await demoTour(ctx))?.page : null;
  const where = { home: `${at}/`, ...(page ? { demo_page: `${at}/status/${encodeURIComponent(page.slug)}` } : {}), api_docs: `${at}${API_DOCS_PATH}` };
  const lines = [`Home:      ${where.home}`, ...(where.demo_page ? [`Demo page: ${where.demo_page}`] : []), `API docs:  ${where.api_docs}`];
  return { text: lines.join('\n'), fields: { msg: lines.map((l) => l.replace(/ +/g, ' ')).join(', '), ...where } };
}

/** The parts of a stop not yet done, by name. */
function stopTracker() {
  const pending = new Set<string>();
  return {
    async track<T>(name: string, work: Promise<T>): Promise<T> {
      pending.add(name);
      try {
        return await work;
      } finally {
        pending.delete(name);
      }
    },
    pending: () => [...pending],
  };
}

/** The metrics' observer of finished requests, and the caller's too when given. */
function requestObservers(metrics: (f: FinishedRequest) => void, other?: (f: FinishedRequest) => void): (f: FinishedRequest) => void {
  if (!other) return metrics;
  return (f) => {
    metrics(f);
    other(f);
  };
}

/** A start on a database that already holds companies shows no key: how to get one. */
function keyHint(companies: string[], dbPath: string): [string, string] {
  const shell = (s: string) => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const name = companies.length === 1 ? shell(companies[0]!) : 'NAME';
  const db = isPostgresUrl(dbPath) ? '<the same postgres:// URL>' : shell(dbPath);
  const held = companies.length === 1 ? `the company ${companies[0]}` : `companies ${companies.slice(0, 5).join(', ')}${companies.length > 5 ? ', …' : ''}`;
  return [
    `No API key is shown: a key is shown once, when made, and this database already holds ${held}. A new key:`,
    `  statusbot key create --company ${name} --db ${db}`,
  ];
}

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
