#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, describeConfigIssues, emptyConfig, loadConfig } from './config/load-config.js';
import type { LoadedConfig } from './config/load-config.js';
import { DatabaseUnavailableError, isPostgresUrl, openDatabase } from './db/database.js';
import { createRequire } from 'node:module';
import { CopyRefusedError, copyDatabase } from './db/copy.js';
import { existsSync } from 'node:fs';
import { migrateToLatest } from './db/migrate.js';
import { createApiKey } from './domain/companies/api-keys.js';
import { systemClock } from './domain/clock.js';
import { createDomainContext } from './domain/context.js';
import { DomainError } from './domain/errors.js';
import { applySetup } from './domain/setup/apply-setup.js';
import { runJobOnce, startServer } from './main.js';
import { JOB_NAMES } from './jobs/jobs.js';
import { readChatEnv } from './config/env.js';
import type { DomainContext } from './domain/context.js';
import { listOutbox, retryDead } from './delivery/outbox-queue.js';
import { listFeeds } from './domain/vendors/vendor-feeds.js';

const USAGE = `statusbot — incident and status service

Usage:
  statusbot [serve] [--port N] [--db FILE] [--config FILE]   serve the API (default)
  statusbot help | --help | --version                        this text, or the version
  statusbot migrate [--db FILE]                              apply pending database migrations
  statusbot apply --config FILE [--db FILE]                  apply a config file to the database
  statusbot key create --company NAME [--db FILE]            issue an API key (printed once)
  statusbot outbox list [--dead] [--db FILE]                 notifications waiting, sent or dead-lettered
  statusbot outbox retry [ID ...] [--db FILE]                put dead-lettered notifications back in line
  statusbot feeds [--all] [--db FILE]                        vendor feeds read: last success, last error, next read
  statusbot discord register [--guild ID]                    register the Discord slash commands
  statusbot db copy --from FILE --to URL                     copy a SQLite database into a new, empty PostgreSQL one
  statusbot jobs run NAME [--config FILE] [--db FILE]        run one job once (${JOB_NAMES.join(', ')})

Options and environment:
  --port N       PORT              listening port (default 8080)
  --db FILE|URL  STATUSBOT_DB      SQLite database file (default ./data/statusbot.db), or a postgres:// URL
  --config FILE  STATUSBOT_CONFIG  YAML config file
`;

class UsageError extends Error {}

/** The version of the installed package. */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

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
        version: { type: 'boolean', short: 'v' },
        dead: { type: 'boolean' },
        all: { type: 'boolean' },
        from: { type: 'string' },
        to: { type: 'string' },
        guild: { type: 'string' },
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

/** Commands that read (or fix) what a running server left refuse a SQLite file that is not there, rather than create an empty one. */
function mustExist(dbPath: string): void {
  if (!isPostgresUrl(dbPath) && dbPath !== ':memory:' && !existsSync(dbPath)) {
    throw new DatabaseUnavailableError(`there is no database at ${dbPath}; pass the one the server uses with --db (or STATUSBOT_DB)`);
  }
}

function configOf(file: string | undefined): LoadedConfig | null {
  return file ? loadConfig(file) : null;
}

/** Runs the command; returns the exit code, or null while the server keeps running. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  const { values, positionals } = parse(argv);
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    console.log(`statusbot ${VERSION}`);
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
      const publicUrl = loaded.config.publicUrl ?? `http://localhost:${portOf(values.port ?? env.PORT)}`;
      return withContext(
        dbPath,
        async (ctx) => {
          const report = await withConfigErrors(loaded, configFile, () => applySetup(ctx, loaded.config.setup));
          console.log(`applied ${configFile}: ${report.companies} companies, ${report.services} catalog services`);
          return 0;
        },
        publicUrl,
      );
    }
    case 'key': {
      if (rest[0] !== 'create' || rest.length !== 1) throw new UsageError('usage: statusbot key create --company NAME');
      const companyName = values.company;
      if (!companyName) throw new UsageError('key create needs --company NAME');
      return withContext(dbPath, async (ctx) => {
        const { key, company } = await createApiKey(ctx, companyName);
        console.error(`New API key for ${company} (shown once; statusbot keeps only its hash):`);
        console.log(key);
        return 0;
      });
    }
    case 'outbox': {
      const [verb, ...ids] = rest;
      if (verb !== 'list' && verb !== 'retry') throw new UsageError('usage: statusbot outbox list [--dead] | outbox retry [ID ...]');
      if (verb === 'list' && ids.length > 0) throw new UsageError('outbox list takes no arguments');
      mustExist(dbPath);
      const numbers = ids.map((id) => {
        if (!/^\d+$/.test(id)) throw new UsageError(`"${id}" is not an outbox row id`);
        return Number(id);
      });
      return withContext(dbPath, async (ctx) => {
        if (verb === 'retry') {
          const count = await retryDead(ctx, numbers);
          console.log(`${count} dead notification${count === 1 ? '' : 's'} back in line; a running server delivers them`);
          return 0;
        }
        const rows = await listOutbox(ctx, values.dead ? { state: 'dead' } : {});
        if (rows.length === 0) console.log(values.dead ? 'no dead notifications' : 'the outbox is empty');
        for (const row of rows) {
          const when = (row.sentAt ?? row.nextAttemptAt).toISOString();
          const error = row.lastError ? `  ${row.lastError}` : '';
          console.log(`${row.id}\t${row.state}\t${row.event}\t${row.stream}\tattempts ${row.attempts}\t${when}${error}`);
        }
        return 0;
      });
    }
    case 'db': {
      if (rest[0] !== 'copy' || rest.length !== 1) throw new UsageError('usage: statusbot db copy --from FILE --to URL');
      if (!values.from || !values.to) throw new UsageError('db copy needs --from (the SQLite file) and --to (the postgres:// URL of an empty database)');
      if (!existsSync(values.from)) throw new UsageError(`db copy: there is no database file ${values.from}`);
      const from = openDatabase({ path: values.from });
      const to = openDatabase({ path: values.to });
      try {
        await migrateToLatest(from);
        await migrateToLatest(to);
        const report = await copyDatabase(from, to, (line) => console.error(line));
        let same = true;
        for (const { table, source, target } of report.tables) {
          same &&= source === target;
          console.log(`${table.padEnd(28)} ${String(source).padStart(9)} ${String(target).padStart(9)}${source === target ? '' : '  DIFFERENT'}`);
        }
        console.log(same ? 'copied: every table holds the same number of rows on both sides' : 'the counts differ: see the tables marked DIFFERENT');
        return same ? 0 : 1;
      } finally {
        await from.destroy();
        await to.destroy();
      }
    }
    case 'feeds': {
      if (rest.length > 0) throw new UsageError('feeds takes no arguments');
      mustExist(dbPath);
      return withContext(dbPath, async (ctx) => {
        const feeds = (await listFeeds(ctx)).filter((f) => values.all || f.watched);
        if (feeds.length === 0) console.log(values.all ? 'no service has a feed' : 'no feed is read: no company watches a service with a feed (--all lists them all)');
        const time = (d: Date | null) => (d ? d.toISOString() : '-');
        for (const f of feeds) {
          const error = f.failures > 0 ? `  failing (${f.failures}): ${f.lastError ?? ''}` : '';
          const polled = f.watched ? `next ${time(f.nextPollAt)}` : 'not watched';
          console.log(`${f.urlname}\t${f.kind}\t${f.url}\t${f.indicator ?? '-'}\tlast ok ${time(f.lastCheckedAt)}\t${polled}${error}`);
        }
        return 0;
      });
    }
    case 'jobs': {
      const [verb, name, ...extra] = rest;
      if (verb !== 'run' || !name || extra.length > 0) throw new UsageError('usage: statusbot jobs run NAME');
      if (!JOB_NAMES.includes(name)) throw new UsageError(`unknown job "${name}"; the jobs are ${JOB_NAMES.join(', ')}`);
      const loaded = configOf(configFile);
      const summary = await withConfigErrors(loaded, configFile, () =>
        runJobOnce({ dbPath, config: loaded?.config ?? emptyConfig(), name }),
      );
      console.log(`job ${name}: ${summary ?? 'done'}`);
      return 0;
    }
    case 'discord': {
      if (rest[0] !== 'register' || rest.length !== 1) throw new UsageError('usage: statusbot discord register [--guild ID]');
      const discord = readChatEnv(env).discord;
      if (!discord) throw new UsageError('discord register needs DISCORD_TOKEN and DISCORD_APPLICATION_ID');
      const { registerDiscordCommands } = await import('../adapters/discord/command-definitions.js');
      const { count, scope } = await registerDiscordCommands({ env: discord, guildId: values.guild ?? null });
      console.log(`registered ${count} commands ${scope}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** A migrated database for one command, closed afterwards. */
async function withContext(
  dbPath: string,
  fn: (ctx: DomainContext) => Promise<number>,
  publicUrl = 'http://localhost:8080',
): Promise<number> {
  const db = openDatabase({ path: dbPath });
  try {
    await migrateToLatest(db);
    return await fn(createDomainContext({ db, clock: systemClock, publicUrl }));
  } finally {
    await db.destroy();
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
    } else if (e instanceof DomainError || e instanceof DatabaseUnavailableError || e instanceof CopyRefusedError) {
      console.error(`statusbot: ${e.message}`);
      process.exitCode = 1;
    } else {
      console.error('statusbot:', e);
      process.exitCode = 1;
    }
  }
}

void main();
