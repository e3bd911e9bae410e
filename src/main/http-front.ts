import type { Server } from 'node:http';
import type { ChatFront } from '../../adapters/chat/chat-front.js';
import type { Config } from '../config/load-config.js';
import type { Db } from '../db/database.js';
import type { DomainContext } from '../domain/context.js';
import { createMetricsEndpoint } from '../http/metrics-endpoint.js';
import { homeRoutes } from '../http/pages/home-routes.js';
import { publicRoutes } from '../http/pages/public-routes.js';
import type { FinishedRequest } from '../http/request-trace.js';
import { createHttpServer } from '../http/server.js';
import type { ClientAddress } from '../infrastructure/client-address.js';
import type { Logger } from '../infrastructure/logger.js';
import type { RawHandler } from '../infrastructure/raw-handler.js';
import type { Metrics } from '../metrics/metrics.js';
import { notReadyBecause } from './readiness.js';

export interface HttpFrontOptions {
  ctx: DomainContext;
  db: Db;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  clientAddress: ClientAddress;
  fronts: readonly ChatFront[];
  /** Which chat platforms have credentials, for the home. */
  chat: { slack: boolean; discord: boolean };
  /** Whether the job scheduler runs (the home says whether feeds are read). */
  jobs: boolean;
  onRequestFinished: ((finished: FinishedRequest) => void) | undefined;
}

/** The HTTP listener, before it listens; ready once the start is done. */
export interface HttpFront {
  server: Server;
  /** The start is done: /healthz answers 200, /readyz asks the database. */
  markReady(): void;
  /** The home shows the demo's key only once this start has made it (or not). */
  settleDemoKey(key: string | null): void;
}

export function createHttpFront(options: HttpFrontOptions): HttpFront {
  const { ctx, db, config, metrics } = options;
  let ready = false;
  let settleDemoKey: (key: string | null) => void = () => {};
  const home = {
    demo: config.setup.demo,
    demoKey: new Promise<string | null>((resolve) => (settleDemoKey = resolve)),
    chat: options.chat,
    feeds: { read: options.jobs && !config.disabledJobs.has('feeds'), intervalSeconds: config.ingestion.intervalMs / 1000 },
  };
  const server = createHttpServer({
    ctx,
    logger: options.logger,
    rateLimitPerMinute: config.rateLimitPerMinute,
    clientAddress: options.clientAddress,
    ready: () => ready,
    notReadyBecause: () => notReadyBecause(db, ready),
    rawHandlers: Object.assign({}, ...options.fronts.map((f) => f.rawHandlers)) as Record<string, RawHandler>,
    publicRoutes: [...homeRoutes(home), ...publicRoutes],
    onPageRendered: metrics.pageRendered,
    onFinished: requestObservers(metrics.requestFinished, options.onRequestFinished),
    metrics: createMetricsEndpoint({ registry: metrics.registry, token: config.metrics.token }),
    region: config.region,
  });
  return {
    server,
    markReady: () => {
      ready = true;
    },
    settleDemoKey: (key) => settleDemoKey(key),
  };
}

/** Listens on the port, or fails the start (the port taken, the address not this machine's). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The metrics' observer of finished requests, and the caller's too when given. */
function requestObservers(metrics: (f: FinishedRequest) => void, other?: (f: FinishedRequest) => void): (f: FinishedRequest) => void {
  if (!other) return metrics;
  return (f) => {
    metrics(f);
    other(f);
  };
}
