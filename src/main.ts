import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { emptyConfig } from './config/load-config.js';
import type { Config } from './config/load-config.js';
import { openDatabase } from './db/database.js';
import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock } from './domain/clock.js';
import type { Clock } from './domain/clock.js';
import { createDomainContext } from './domain/context.js';
import type { DomainContext } from './domain/context.js';
import { applySetup } from './domain/setup/apply-setup.js';
import { DEMO_BOARD_ID, seedDemoCompany } from './domain/setup/demo-setup.js';
import { createHttpServer } from './http/server.js';
import type { Logger } from './http/server.js';

export interface StartOptions {
  dbPath: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  config?: Config;
  clock?: Clock;
  logger?: Logger;
}

export interface RunningServer {
  /** The base URL the server answers on, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  ctx: DomainContext;
  /** The demo company's key when this start created it. */
  demoKey: string | null;
  close(): Promise<void>;
}

export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  error: (message, error) => console.error(message, error ?? ''),
};

/** The composition root: database, migrations, config, HTTP listener. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? consoleLogger;
  const config = options.config ?? emptyConfig();
  const db: Db = openDatabase({ path: options.dbPath });
  let server: Server | undefined;
  try {
    await migrateToLatest(db);
    const port = options.port;
    const publicUrl = config.publicUrl ?? `http://localhost:${port === 0 ? 8080 : port}`;
    const ctx = createDomainContext({ db, clock: options.clock ?? systemClock, publicUrl });
    await applySetup(ctx, config.setup);
    const demoKey = config.setup.companies.length === 0 ? await seedDemoCompany(ctx) : null;

    let ready = false;
    server = createHttpServer({ ctx, logger, rateLimitPerMinute: config.rateLimitPerMinute, ready: () => ready });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, options.host ?? '0.0.0.0', () => {
        listening.off('error', reject);
        resolve();
      });
    });
    ready = true;
    const actualPort = (listening.address() as AddressInfo).port;
    const host = options.host && options.host !== '0.0.0.0' ? options.host : 'localhost';
    const url = `http://${host}:${actualPort}`;
    logger.info(`statusbot listening on ${url} (database ${options.dbPath})`);
    if (demoKey) {
      logger.info(
        [
          '',
          'Created the demo company "Demo". Its API key, shown this once:',
          `  ${demoKey}`,
          'Try:',
          `  curl -s -H "Authorization: Bearer ${demoKey}" ${url}/api/v2/boards/${DEMO_BOARD_ID}`,
          '',
        ].join('\n'),
      );
    }
    return {
      url,
      port: actualPort,
      ctx,
      demoKey,
      close: async () => {
        await new Promise<void>((resolve) => {
          listening.close(() => resolve());
          listening.closeIdleConnections();
        });
        await db.destroy();
      },
    };
  } catch (error) {
    server?.close();
    await db.destroy();
    throw error;
  }
}
