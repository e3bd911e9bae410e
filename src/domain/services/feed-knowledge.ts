import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import type { Knowledge } from '../model/service.js';

/** A vendor's status is stale after this many intervals without a successful read. */
export const STALE_AFTER_INTERVALS = 3;

export const KNOWN: Knowledge = Object.freeze({ known: true });

/** What a service's feed row says of its reads. */
export interface FeedFacts {
  last_checked_at: number | null;
  stale_at: number | null;
  last_error: string | null;
  failures: number;
}

/**
 * What the facts of a service's feed say of its status at `now` (see Knowledge). The error
 * of the last read stays out of it: it names internal addresses and network errors.
 */
export function knowledgeFrom(feed: FeedFacts | undefined, now: number): Knowledge {
  if (feed === undefined) return KNOWN;
  const failing = feed.failures > 0;
  if (feed.last_checked_at === null) {
    return { known: false, reason: failing ? UNREADABLE : "the vendor's status feed has not been read yet", since: null };
  }
  if (feed.stale_at === null || now < feed.stale_at) return KNOWN;
  return { known: false, reason: failing ? UNREADABLE : "the vendor's status feed has not been read", since: new Date(feed.last_checked_at) };
}

const UNREADABLE = "the vendor's status feed could not be read";

/** The feed facts of each of the services that has a feed. */
export async function feedFactsOf(db: Kysely<Database>, serviceIds: readonly number[]): Promise<Map<number, FeedFacts>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('vendor_feeds')
    .innerJoin('services', 'services.id', 'vendor_feeds.service_id')
    .select(['vendor_feeds.service_id', 'vendor_feeds.last_checked_at', 'vendor_feeds.stale_at', 'vendor_feeds.last_error', 'vendor_feeds.failures'])
    .where('vendor_feeds.service_id', 'in', [...serviceIds])
    .where('services.feed_kind', 'is not', null)
    .execute();
  return new Map(rows.map(({ service_id, ...facts }) => [service_id, { ...facts, failures: Number(facts.failures) }]));
}

/** The knowledge of each service (see Knowledge); services without a feed are known. */
export async function knowledgeOf(db: Kysely<Database>, serviceIds: readonly number[], now: number): Promise<Map<number, Knowledge>> {
  const facts = await feedFactsOf(db, serviceIds);
  return new Map(serviceIds.map((id) => [id, knowledgeFrom(facts.get(id), now)]));
}

/** What `GET /services/{name}` adds for a service with a feed: when it was last read, and why the last read failed. */
export async function feedHealthOf(
  ctx: DomainContext,
  serviceId: number,
): Promise<{ lastCheckedAt: Date | null; feedError: string | null; knowledge: Knowledge }> {
  const facts = (await feedFactsOf(ctx.db, [serviceId])).get(serviceId);
  return {
    lastCheckedAt: facts?.last_checked_at == null ? null : new Date(facts.last_checked_at),
    feedError: facts && facts.failures > 0 ? facts.last_error : null,
    knowledge: knowledgeFrom(facts, ctx.clock.now().getTime()),
  };
}
