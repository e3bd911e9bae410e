import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { OpenDatabaseOptions, OpenedDatabase } from '../../engine.js';
import type { Database } from '../../schema.js';
import { writeEffectOf } from '../../write-effects.js';
import { ChangeFeed, SERVER_KEEPALIVES } from './change-feed.js';
import { reasonOf, targetOf } from './storage.js';

/*
 * PostgreSQL: a pool of connections to the server, each of which prepares
 * its statements once and tells the change feed what this process committed.
 */

// PostgreSQL's bigint (times in milliseconds, ids, counts) comes back as a JavaScript number, as from SQLite.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

const PREPARED_LIMIT = 1_000;
const preparedNames = new Map<string, string>();

/**
 * Which name a statement is prepared under: parsing and planning cost more
 * than running the small statements the API issues, so each SQL text is
 * prepared once per connection and then only bound and run. Other
 * statements (schema changes, transaction control) and texts beyond the first
 * PREPARED_LIMIT (lists of varying length make new ones) run unprepared.
 */
function preparedNameOf(text: string): string | null {
  let name = preparedNames.get(text);
  if (name) return name;
  if (preparedNames.size >= PREPARED_LIMIT || !/^\s*(select|insert|update|delete|with)\b/i.test(text)) return null;
  name = `statusbot_${preparedNames.size + 1}`;
  preparedNames.set(text, name);
  return name;
}

/**
 * A pg client that runs kysely's parameterized statements as named, prepared
 * ones (see preparedNameOf). A connection that breaks while in use (a server
 * restart) fails its queries; the client's own `error` event then must not end
 * the process (the pool listens only to idle clients), and the pool drops the
 * client when it comes back.
 *
 * It also tells the change feed, once a write is committed, what changed:
 * this process's next read must not be answered from a cache made before it
 * (whatever wrote it: the writer, a job, `apply` in this process), and after
 * a change to API keys or companies its next request must look its key up
 * again, both even before the commit's notification comes back to it (other
 * replicas hear that notification before the writer answers).
 */
class PreparingClient extends pg.Client {
  /** Set by the pool's client class (see openPostgres). */
  protected feed: ChangeFeed | null = null;
  #inTransaction = false;
  #written: 'none' | 'writes' | 'writesKeys' = 'none';

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }

  // pg's query() has many overloads; kysely calls query(text, values).
  override query(...args: unknown[]): never {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) ? preparedNameOf(text) : null;
    const run = super.query as (...a: unknown[]) => never;
    const result = name ? run.call(this, { name, text, values }) : run.apply(this, args);
    if (typeof text !== 'string' || !this.feed) return result;
    const effect = writeEffectOf(text);
    switch (effect) {
      case 'none':
        return result;
      case 'begin':
      case 'rollback':
        this.#inTransaction = effect === 'begin';
        this.#written = 'none';
        return result;
      case 'writes':
      case 'writesKeys':
        if (!this.#inTransaction) return this.#thenChanged(result, effect);
        if (this.#written !== 'writesKeys') this.#written = effect;
        return result;
      case 'commit': {
        const written = this.#written;
        this.#inTransaction = false;
        this.#written = 'none';
        return written === 'none' ? result : this.#thenChanged(result, written);
      }
    }
  }

  /** Once the statement is done (or failed: it may have committed all the same), before its caller goes on. */
  #thenChanged(result: never, written: 'writes' | 'writesKeys'): never {
    const feed = this.feed!;
    const tell = () => {
      feed.changedHere();
      if (written === 'writesKeys') feed.keysChanged();
    };
    const pending = result as Promise<unknown> | undefined;
    // Called with a callback (kysely never does), pg returns nothing to wait for: tell at once.
    if (typeof pending?.finally !== 'function') {
      tell();
      return result;
    }
    return pending.finally(tell) as never;
  }
}

/** Ending the pool (kysely's destroy) also ends the change feed's connection. */
class FeedClosingPool extends pg.Pool {
  constructor(
    private readonly feed: ChangeFeed,
    config: pg.PoolConfig,
  ) {
    super(config);
  }
  override async end(): Promise<void> {
    await this.feed.close();
    return super.end();
  }
}

export function openPostgres(options: OpenDatabaseOptions): OpenedDatabase<ChangeFeed> {
  const url = options.path;
  const poolSize = options.poolSize ?? 10;
  const feed = new ChangeFeed(url);
  const Client = class extends PreparingClient {
    protected override feed = feed;
  };
  // A request waits at most 5 s for a connection: while the server is down, requests fail fast with 503.
  const pool = new FeedClosingPool(feed, { connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000, Client });
  // An idle connection that breaks (a restart of the server) is replaced by the pool; it must not end the process.
  pool.on('error', () => undefined);
  // Sent before the connection's first statement (a client runs its queries in order); a failure shows there.
  pool.on('connect', (client) => void client.query(SERVER_KEEPALIVES).catch(() => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    // The generation of the process's ChangeFeed, moved by every commit of any replica, which the writer waits to be
    // heard everywhere before it answers; so a write on any replica is seen by the very next read on every other,
    // without a round trip per read.
    marker: () => feed.marker(),
    // Moved only by commits to API keys or companies, of any replica: writes under load do not make every request
    // look its key up again.
    keysMarker: () => feed.keysMarker(),
    feed,
    poolSize,
    async answers() {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    async unusable() {
      try {
        await sql`select 1`.execute(db);
        return null;
      } catch (error) {
        return `cannot use the PostgreSQL database at ${targetOf(url)}: ${reasonOf(error)}`;
      }
    },
  };
}
