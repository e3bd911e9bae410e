import type { Server } from 'node:http';
import type { ChatFront } from '../../adapters/chat/chat-front.js';
import type { Db } from '../db/database.js';
import type { OutboxWorker } from '../delivery/outbox-worker.js';
import { writeKeyUses } from '../domain/companies/api-keys.js';
import type { DomainContext } from '../domain/context.js';
import type { Logger } from '../infrastructure/logger.js';
import type { Scheduler } from '../jobs/scheduler.js';
import { STOP_GRACE_MS } from '../stop-times.js';

/** How long dropped work may take to give back what it claimed. */
const DROP_GRACE_MS = 2_000;

/** The parts of a stop not yet done, by name. */
export interface StopTracker {
  track<T>(name: string, work: Promise<T>): Promise<T>;
  pending(): string[];
}

export function createStopTracker(): StopTracker {
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

/** What a running server stops, each part as the start made it. */
export interface ServerParts {
  server: Server;
  /** Fired STOP_GRACE_MS into a stop: every outbound request and chat connection under way ends. */
  stop: AbortController;
  ctx: DomainContext;
  db: Db;
  logger: Logger;
  fronts: readonly ChatFront[];
  scheduler: Scheduler;
  /** What the jobs run with (the prober's and the feeds' clients), closed once the scheduler has stopped. */
  jobDeps: { close(): Promise<void> };
  worker: OutboxWorker;
  /** The outbound pool of webhooks and pagers, closed once the worker has stopped. */
  webhooks: { close(): Promise<void> };
  /** The publishers, closed once the worker has stopped (the mail transport's connections). */
  publishers: readonly { close?(): void }[];
}

/**
 * Stops: no new work, work under way gets STOP_GRACE_MS to finish, then what
 * is left is dropped (nothing of it recorded, claimed rows given back), and the
 * database closes. Each part is bounded but the database's own close.
 */
export async function stopServer(parts: ServerParts, stopping: StopTracker): Promise<void> {
  const { server, stop, ctx, worker } = parts;
  const grace = setTimeout(() => stop.abort(), STOP_GRACE_MS);
  // Requests under way finish within the grace; a connection still open then is cut.
  stop.signal.addEventListener('abort', () => server.closeAllConnections(), { once: true });
  const requests = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  ctx.afterCommit.delete(worker.wake);
  try {
    // New work stops first (the scheduler, chat connections); work under way finishes or is dropped at the grace.
    await Promise.all([
      stopping.track('chat connections', Promise.all(parts.fronts.map((front) => front.stop()))),
      stopping.track(
        'jobs',
        parts.scheduler.stop(STOP_GRACE_MS + DROP_GRACE_MS).then(() => parts.jobDeps.close()),
      ),
      stopping.track(
        'outbox deliveries',
        worker.stop().then(() => parts.webhooks.close()),
      ),
      stopping.track('HTTP requests', requests),
    ]);
    for (const publisher of parts.publishers) publisher.close?.();
  } finally {
    clearTimeout(grace);
  }
  // When each key was last used, kept in memory for up to a minute: written before the database closes.
  await stopping.track(
    'database',
    writeKeyUses(ctx)
      .catch((error: unknown) => parts.logger.error('the last use of API keys could not be written', error))
      .then(() => parts.db.destroy()),
  );
}
