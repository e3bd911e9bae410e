import type { Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { createWriter } from '../db/writer.js';
import type { WriteOptions, WriteUnit } from '../db/writer.js';
import type { ChatPlatform } from '../db/schema.js';
import type { Clock } from './clock.js';
import type { Company } from './model/company.js';
import type { QuorumReachChange } from './model/quorum-reach-change.js';
import { DEFAULT_USER_REPORTS } from './model/user-report-settings.js';
import type { UserReportSettings } from './model/user-report-settings.js';

/** What every use case runs with: the database, the clock, and where this server is reachable. */
export interface DomainContext {
  /** For reads. Writes go through `write`. */
  readonly db: Db;
  /** Runs a unit of writes in a transaction; resolves once it is committed (see db/writer.ts). */
  write<T>(unit: WriteUnit<T>, options?: WriteOptions): Promise<T>;
  readonly clock: Clock;
  /** Base of `tracker_url` values, without a trailing slash. */
  readonly publicUrl: string;
  /** When user reports open an incident, and when it resolves. */
  readonly userReports: UserReportSettings;
  /** Called after every commit of `write`; the outbox worker listens to deliver at once. */
  readonly afterCommit: Set<() => void>;
  /** On whose behalf changes are made, for the audit trail: the base context acts as `system`. */
  readonly acting: Acting;
  /** The same context, acting for another actor (an API key, a chat user, a job) within a request. */
  actingAs(acting: Acting): DomainContext;
  /**
   * Process-local state, shared by every acting context of the server: caches kept
   * elsewhere key on it (a WeakMap by `processState`), never on the context itself.
   * The demo period this process brought up to date, and recently used API keys.
   */
  /**
   * The chat platforms this process has no credentials for, with what is
   * missing (`no SLACK_BOT_TOKEN`): nothing is queued for their channels, as
   * it would wait for nobody and then flood the channel once the platform is on.
   */
  readonly chatOff: ReadonlyMap<ChatPlatform, string>;
  /** Told when a monitor's quorum goes out of reach or back (see quorum-reach.ts); the server logs it. */
  readonly onQuorumReach?: (change: QuorumReachChange) => void;
  readonly processState: {
    demoPeriod: number;
    /** By key: valid while the database's change marker holds `epoch`; `hash` spares hashing the key again. */
    apiKeys: Map<string, { company: Company; keyId: number; agentRegion: string | null; hash: string; epoch: string }>;
  };
}

export interface DomainContextOptions {
  db: Db;
  clock: Clock;
  publicUrl: string;
  userReports?: UserReportSettings;
  /** See DomainContext.chatOff; default: none is off. */
  chatOff?: ReadonlyMap<ChatPlatform, string>;
  /** Called with the number of units in each write transaction (metrics). */
  onWriteBatch?: (size: number) => void;
  /** See DomainContext.onQuorumReach. */
  onQuorumReach?: (change: QuorumReachChange) => void;
}

/** Who acts, and the request that carries it (the id the request's log line has). */
export interface Acting {
  /** `api_key:<key id>`, `slack:<team>/<user>`, `discord:<guild>/<user>`, `cli`, `job:<name>`, `page`, `system`. */
  readonly actor: string;
  readonly requestId: string | null;
}

export type Tx = Kysely<Database>;

export function createDomainContext(options: DomainContextOptions): DomainContext {
  const afterCommit = new Set<() => void>();
  const writer = createWriter(options.db, {
    afterCommit: () => {
      for (const listener of afterCommit) listener();
    },
    onBatch: options.onWriteBatch,
  });
  const base: DomainContext = {
    afterCommit,
    db: options.db,
    write: (unit, options) => writer.run(unit, options),
    clock: options.clock,
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    userReports: options.userReports ?? DEFAULT_USER_REPORTS,
    chatOff: options.chatOff ?? new Map(),
    ...(options.onQuorumReach ? { onQuorumReach: options.onQuorumReach } : {}),
    processState: { demoPeriod: Number.NaN, apiKeys: new Map() },
    acting: { actor: 'system', requestId: null },
    actingAs,
  };
  // Everything but `acting` is shared: the writer, the process state, the listeners.
  function actingAs(acting: Acting): DomainContext {
    return { ...base, acting };
  }
  return base;
}
