import type { Db } from '../../src/db/database.js';
import type { DueFeed } from '../../src/domain/vendors/vendor-feeds.js';

/** A catalog service's Statuspage feed as the poller hands it to ingestion, for tests that apply snapshots directly. */
export async function dueFeedOf(db: Db, urlname: string, url: string): Promise<DueFeed> {
  const row = await db.selectFrom('services').select(['id', 'name', 'urlname']).where('urlname', '=', urlname).executeTakeFirstOrThrow();
  return { serviceId: row.id, urlname: row.urlname, name: row.name, kind: 'statuspage', url, validators: {}, failures: 0, fingerprint: null };
}
