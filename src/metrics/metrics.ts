import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../infrastructure/logger.js';
import type { Db } from '../db/database.js';
import type { DeliveryResult } from '../delivery/outbox-worker.js';
import type { FinishedRequest } from '../http/request-trace.js';
import type { FeedFetchResult } from '../jobs/feed-poller.js';
import { registerDatabaseGauges } from './database-gauges.js';
import { SeriesHistogram } from './series-histogram.js';
import type { HistogramSeries } from './series-histogram.js';

const DEFAULT_GAUGES_NAMED_AS_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export interface MetricsOptions {
  /** Read at scrape time for the outbox, monitor and feed gauges. */
  db: Db;
  now: () => Date;
  logger: Logger;
}

/** One server's metrics: its registry, and a hook for each component that reports to it. */
export interface Metrics {
  readonly registry: Registry;
  requestFinished(finished: FinishedRequest): void;
  delivered(platform: string, result: DeliveryResult): void;
  probed(durationMs: number, up: boolean): void;
  feedFetched(result: FeedFetchResult): void;
  jobRan(job: string, result: 'ok' | 'failed', durationMs: number): void;
  writeBatch(size: number): void;
  pageRendered(route: string): void;
}

/**
 * A registry per server, never prom-client's global one: several servers run
 * in one test process, and each must report only its own work. The hooks are
 * arrow functions, so that they can be handed to components unbound.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which Prometheus's lint (promtool check metrics) refuses; the sum over
  // the `type` label of nodejs_active_handles, nodejs_active_requests and nodejs_active_resources says the same.
  for (const name of DEFAULT_GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(name);
  registerDatabaseGauges({ registry, db: options.db, now: options.now, logger: options.logger });
  const registers = [registry];

  const requestDuration = new SeriesHistogram({
    name: 'statusbot_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status (499: the client left before the answer was complete).',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const deliveries = new Counter({
    name: 'statusbot_deliveries_total',
    help: 'Outbox delivery attempts by platform and result (sent, failed, rate_limited, dead).',
    labelNames: ['platform', 'result'],
    registers,
  });
  const probeDuration = new SeriesHistogram({
    name: 'statusbot_probe_duration_seconds',
    help: 'Duration of monitor probes.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const probes = new Counter({ name: 'statusbot_probes_total', help: 'Monitor probes by result (up, down).', labelNames: ['result'], registers });
  const feedFetches = new Counter({
    name: 'statusbot_feed_fetches_total',
    help: 'Reads of vendor status feeds by result (ok, not_modified, failed).',
    labelNames: ['result'],
    registers,
  });
  const jobRuns = new Counter({ name: 'statusbot_job_runs_total', help: 'Job runs by job and result (ok, failed).', labelNames: ['job', 'result'], registers });
  const jobDuration = new SeriesHistogram({
    name: 'statusbot_job_duration_seconds',
    help: 'Duration of job runs, by job.',
    labelNames: ['job'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers,
  });
  const writeBatches = new SeriesHistogram({
    name: 'statusbot_writer_batch_size',
    help: 'Units of writing committed together in one transaction (group commit).',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers,
  });
  const pageRenders = new Counter({
    name: 'statusbot_page_renders_total',
    help: 'Public pages and feeds rendered rather than served from the page cache, by route pattern.',
    labelNames: ['route'],
    registers,
  });
  // Known results start at 0, so that a rate over them exists before the first one happens.
  for (const result of ['up', 'down']) probes.inc({ result }, 0);
  for (const result of ['ok', 'not_modified', 'failed'] satisfies FeedFetchResult[]) feedFetches.inc({ result }, 0);

  // Route, method and status are bounded sets (route patterns, not paths): each series' observer is kept, so that a request allocates no labels.
  const observers = new Map<string, Map<string, Map<number, HistogramSeries>>>();
  function requestSeries(route: string, method: string, status: number): HistogramSeries {
    let byMethod = observers.get(route);
    if (!byMethod) {
      byMethod = new Map();
      observers.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let observer = byStatus.get(status);
    if (!observer) {
      observer = requestDuration.labels(route, method, String(status));
      byStatus.set(status, observer);
    }
    return observer;
  }

  return {
    registry,
    requestFinished: (finished) => requestSeries(finished.route, finished.method, finished.status).observe(finished.durationMs / 1000),
    delivered: (platform, result) => deliveries.inc({ platform, result }),
    probed: (durationMs, up) => {
      probeDuration.observe(durationMs / 1000);
      probes.inc({ result: up ? 'up' : 'down' });
    },
    feedFetched: (result) => feedFetches.inc({ result }),
    jobRan: (job, result, durationMs) => {
      jobRuns.inc({ job, result });
      jobDuration.labels(job).observe(durationMs / 1000);
    },
    writeBatch: (size) => writeBatches.observe(size),
    pageRendered: (route) => pageRenders.inc({ route }),
  };
}
