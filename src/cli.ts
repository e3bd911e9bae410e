#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, describeConfigIssues, emptyConfig, loadConfig } from './config/load-config.js';
import type { LoadedConfig } from './config/load-config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createApiKey } from './domain/companies/api-keys.js';
import { systemClock } from './domain/clock.js';
import { createDomainContext } from './domain/context.js';
import { DomainError } from './domain/errors.js';
import { applySetup } from './domain/setup/apply-setup.js';
import { startServer } from './main.js';

const USAGE = `statusbot — incident and status service

Usage:
  statusbot [serve] [--port N] [--db FILE] [--config FILE]   serve the API (default)
  statusbot migrate [--db FILE]                              apply pending database migrations
  statusbot apply --config FILE [--db FILE]                  apply a config file to the database
  statusbot key create --company NAME [--db FILE]            issue an API key (printed once)

Options and environment:
  --port N       PORT              listening port (default 8080)
  --db FILE      STATUSBOT_DB      SQLite database file (default ./data/statusbot.db)
  --config FILE  STATUSBOT_CONFIG  YAML config file
`;

class UsageError extends Error {}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        db: { type: 'string' },
        config: { type: 'string' },
        company: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function portOf(value: string | undefined): number {
  if (value === undefined || value === '') return 8080;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`the port must be a number from 0 to 65535, not "${value}"`);
  return port;
}

function configOf(file: string | undefined): LoadedConfig | null {
  return file ? loadConfig(file) : null;
}

/** Runs the command; returns the exit code, or null while the server keeps running. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const dbPath = values.db ?? env.STATUSBOT_DB ?? './data/statusbot.db';
  const configFile = values.config ?? env.STATUSBOT_CONFIG;
  const [command = 'serve', ...rest] = positionals;

  switch (command) {
    case 'serve': {
      if (rest.length > 0) throw new UsageError(`serve takes no arguments, got "${rest.join(' ')}"`);
      const loaded = configOf(configFile);
      const port = portOf(values.port ?? env.PORT);
      const server = await withConfigErrors(loaded, configFile, () =>
        startServer({ dbPath, port, config: loaded?.config ?? emptyConfig() }),
      );
      const stop = (signal: string) => {
        console.log(`${signal}: shutting down`);
        void server.close().then(() => process.exit(0));
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      return null;
    }
    case 'migrate': {
      const db = openDatabase({ path: dbPath });
      try {
        const { applied } = await migrateToLatest(db);
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'apply': {
      if (!configFile) throw new UsageError('apply needs --config FILE (or STATUSBOT_CONFIG)');
      const loaded = loadConfig(configFile);
      const db = openDatabase({ path: dbPath });
      try {
        await migrateToLatest(db);
        const ctx = createDomainContext({
          db,
          clock: systemClock,
          publicUrl: loaded.config.publicUrl ?? `http://localhost:${portOf(values.port ?? env.PORT)}`,
        });
        const report = await withConfigErrors(loaded, configFile, () => applySetup(ctx, loaded.config.setup));
        console.log(`applied ${configFile}: ${report.companies} companies, ${report.services} catalog services`);
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'key': {
      if (rest[0] !== 'create' || rest.length !== 1) throw new UsageError('usage: statusbot key create --company NAME');
      if (!values.company) throw new UsageError('key create needs --company NAME');
      const db = openDatabase({ path: dbPath });
      try {
        await migrateToLatest(db);
        const ctx = createDomainContext({ db, clock: systemClock, publicUrl: 'http://localhost' });
        const { key, company } = await createApiKey(ctx, values.company);
        console.error(`New API key for ${company} (shown once; statusbot keeps only its hash):`);
        console.log(key);
      } finally {
        await db.destroy();
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Entries of the config that clash with the database are reported at their line in the file. */
async function withConfigErrors<T>(loaded: LoadedConfig | null, file: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (loaded && file && e instanceof DomainError && e.code === 'invalid_input') {
      throw new ConfigError(describeConfigIssues(file, e.issues, loaded.locate));
    }
    throw e;
  }
}

async function main(): Promise<void> {
  try {
    const code = await run(process.argv.slice(2));
    if (code !== null) process.exitCode = code;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`statusbot: ${e.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (e instanceof ConfigError) {
      console.error(e.message);
      process.exitCode = 1;
    } else if (e instanceof DomainError) {
      console.error(`statusbot: ${e.message}`);
      process.exitCode = 1;
    } else {
      console.error('statusbot:', e);
      process.exitCode = 1;
    }
  }
}

void main();
