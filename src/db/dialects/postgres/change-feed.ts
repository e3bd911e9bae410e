import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The channel every write transaction notifies on commit, with its transaction id (see triggers.ts). */
export const CHANGES_CHANNEL = 'statusbot_changes';
/** The channel replicas say on which changes they have seen: `<replica> <xid> <xid> …`. */
export const SEEN_CHANNEL = 'statusbot_seen';
/**
 * Prefix of the notification a commit that changed API keys or companies
 * sends too (`k<xid>`, before its plain one): what authenticated keys are
 * remembered under (see `keysMarker`) moves only then, not at every commit.
 */
export const KEYS_CHANGED_PREFIX = 'k';
/**
 * Prefix of the notification of a commit to tables no cached read shows
 * (delivery's bookkeeping, `o<xid>`): replicas say they saw it, so that a
 * writer waiting for them is answered, and keep their caches. A commit that
 * also changed other tables sends its plain notification as well, which
 * moves them.
 */
export const UNCACHED_CHANGE_PREFIX = 'o';
/** How a replica's listening connection names itself, so writers can tell which replicas must see a change. */
export const LISTENER_NAME_PREFIX = 'statusbot-changes ';

/**
 * Said on every connection: PostgreSQL probes a connection idle for 10 s and
 * ends its session after three unanswered probes 5 s apart. A replica whose
 * machine or network is gone (no close ever reaches the server) thus loses
 * its sessions within about 25 s, and with them its row locks and its
 * listening connection (by which the others take over its claims), rather
 * than after the system's default of two hours. Ignored on Unix sockets.
 */
export const SERVER_KEEPALIVES = 'set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3';

/** How long a writer waits for the other replicas to say they have seen its commit before it answers anyway. */
const SEEN_TIMEOUT_MS = 2_000;
const RECONNECT_MS = [100, 250, 500, 1_000, 2_000];
/** PostgreSQL's notification payloads are at most 8000 bytes. */
const MAX_PAYLOAD = 7_900;
const OWN_REMEMBERED = 1_000;

interface Waiter {
  pending: Set<string>;
  done(): void;
}

/**
 * PostgreSQL's counterpart of SQLite's in-process change counter, for several
 * replicas: one listening connection per process hears every commit of every
 * replica (a trigger on each table notifies CHANGES_CHANNEL), moves the local
 * generation that read caches compare, and says it has seen the change on
 * SEEN_CHANNEL. A writer waits, before answering, until every replica listening
 * when its transaction began has said so; so a read on any replica after a
 * writer's 2xx is never answered from a cache made before the change. While
 * the connection is down, `marker()` changes at every call (nothing is served
 * from a cache); once back, the generation moves on, as anything may have
 * changed meanwhile.
 */
export class ChangeFeed {
  readonly replica = randomUUID();
  #generation = 0;
  #keysGeneration = 0;
  #uncached = 0;
  #client: pg.Client | null = null;
  #listening = false;
  #closed = false;
  #attempt = 0;
  #reconnect: NodeJS.Timeout | null = null;
  #unsaid = new Set<string>();
  #saying = false;
  #sayScheduled = false;
  readonly #waiters = new Map<string, Waiter>();
  readonly #own = new Set<string>();

  constructor(private readonly url: string) {
    void this.#connect();
  }

  /** Whether changes are heard now (caches may be used). */
  get listening(): boolean {
    return this.#listening;
  }

  /** Changes whenever any replica may have committed since the last call that returned the same value. */
  marker(): string {
    return this.#listening ? `g${this.#generation}` : `u${++this.#uncached}`;
  }

  /**
   * Changes whenever any replica may have committed a change to API keys or
   * companies since the last call that returned the same value: what an
   * authenticated key is remembered under. Other commits (an incident
   * created) leave it alone, so a key is not looked up again at every write.
   */
  keysMarker(): string {
    return this.#listening ? `k${this.#keysGeneration}` : `u${++this.#uncached}`;
  }

  /** This process committed a change to API keys or companies: its own next request must look its key up again. */
  keysChanged(): void {
    this.#keysGeneration++;
  }

  /** This process committed `xid`: its own next read must not use what was cached before (its notification, when it comes, moves nothing more). */
  committed(xid: string): void {
    this.changedHere();
    this.committing(xid);
  }

  /** This process committed a write (of a transaction whose id it may not know): its own next read must not use what was cached before. */
  changedHere(): void {
    this.#generation++;
  }

  /** This process is about to commit `xid`: its notification may be heard before `committed` is called, and is its own. */
  committing(xid: string): void {
    this.#own.add(xid);
    // Units that wrote nothing are never notified: forget the oldest.
    if (this.#own.size > OWN_REMEMBERED) this.#own.delete(this.#own.values().next().value!);
  }

  /**
   * Resolves once every replica in `replicas` (listening names, as read from
   * pg_stat_activity when the transaction began) has said it saw `xid`, or
   * after SEEN_TIMEOUT_MS (a replica that hangs must not stop every write).
   * Call before the commit, await after it.
   */
  expectSeen(xid: string, replicas: string[]): Promise<void> {
    const pending = new Set(replicas.map((name) => name.slice(LISTENER_NAME_PREFIX.length)).filter((r) => r !== this.replica));
    if (pending.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(finish, SEEN_TIMEOUT_MS);
      timer.unref();
      const self = this;
      function finish(): void {
        clearTimeout(timer);
        self.#waiters.delete(xid);
        resolve();
      }
      this.#waiters.set(xid, { pending, done: finish });
    });
  }

  /** A write that failed before its commit: nobody needs to see it. */
  forget(xid: string): void {
    this.#waiters.get(xid)?.done();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    if (this.#reconnect) clearTimeout(this.#reconnect);
    for (const waiter of [...this.#waiters.values()]) waiter.done();
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.url });
    this.#client = client;
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (n) => this.#heard(n.channel, n.payload ?? ''));
    try {
      await client.connect();
      // What this connection says (that it saw a change) need not be on disk before it is heard: no commit here waits for a disk sync.
      await client.query(`listen ${CHANGES_CHANNEL}; listen ${SEEN_CHANNEL}; set synchronous_commit = off; ${SERVER_KEEPALIVES}`);
      // Named only once listening: a writer that sees the name waits for this replica's word, which now comes.
      await client.query('select set_config($1, $2, false)', ['application_name', LISTENER_NAME_PREFIX + this.replica]);
      if (this.#closed || this.#client !== client) return;
      this.#attempt = 0;
      this.#generation++;
      this.#keysGeneration++;
      this.#listening = true;
    } catch {
      this.#lost(client);
    }
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#listening = false;
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    const delay = RECONNECT_MS[Math.min(this.#attempt++, RECONNECT_MS.length - 1)]!;
    this.#reconnect = setTimeout(() => void this.#connect(), delay);
    this.#reconnect.unref();
  }

  #heard(channel: string, payload: string): void {
    if (channel === CHANGES_CHANNEL) {
      // Sent before the commit's plain notification, so heard before this replica says it saw the commit.
      if (payload.startsWith(KEYS_CHANGED_PREFIX)) return void this.#keysGeneration++;
      if (payload.startsWith(UNCACHED_CHANGE_PREFIX)) {
        const xid = payload.slice(UNCACHED_CHANGE_PREFIX.length);
        // Its plain notification, if the commit has one, is heard in the same delivery, before the word goes out.
        if (!this.#own.has(xid)) {
          this.#unsaid.add(xid);
          this.#sayLater();
        }
        return;
      }
      if (this.#own.delete(payload)) return;
      this.#generation++;
      this.#unsaid.add(payload);
      this.#sayLater();
      return;
    }
    if (channel !== SEEN_CHANNEL || this.#waiters.size === 0) return;
    const [replica, ...xids] = payload.split(' ');
    if (!replica) return;
    for (const xid of xids) {
      const waiter = this.#waiters.get(xid);
      if (waiter?.pending.delete(replica) && waiter.pending.size === 0) waiter.done();
    }
  }

  /**
   * Says what was seen once the notifications that arrived together are all
   * heard (a commit's `k` one among them), in one notification for all.
   */
  #sayLater(): void {
    if (this.#sayScheduled) return;
    this.#sayScheduled = true;
    setImmediate(() => {
      this.#sayScheduled = false;
      this.#say();
    });
  }

  /** Says which changes this replica saw: one notification at a time, carrying all heard meanwhile. */
  #say(): void {
    const client = this.#client;
    if (this.#saying || this.#unsaid.size === 0 || !client || !this.#listening) return;
    let payload = this.replica;
    for (const xid of this.#unsaid) {
      if (payload.length + xid.length + 1 > MAX_PAYLOAD) break;
      payload += ` ${xid}`;
      this.#unsaid.delete(xid);
    }
    this.#saying = true;
    client
      .query('select pg_notify($1, $2)', [SEEN_CHANNEL, payload])
      .catch(() => undefined)
      .finally(() => {
        this.#saying = false;
        this.#say();
      });
  }
}
