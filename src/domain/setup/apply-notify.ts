import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { NotifyDestinationSpec } from '../notifications/notify-destination.js';

/** A destination's identity across applies: a digest of its kind and settings, so that no secret is stored twice in the clear. */
export const destinationKey = (spec: NotifyDestinationSpec): string =>
  createHash('sha256')
    .update(JSON.stringify(Object.entries(spec).sort(([a], [b]) => a.localeCompare(b))))
    .digest('hex');

/**
 * The company's paging and chat destinations exactly as declared: an entry
 * that is new, or whose settings changed, is a new destination (its pending
 * notifications stay with the one it replaces, which is removed).
 */
export async function applyNotifyDestinations(trx: Kysely<Database>, companyId: number, specs: readonly NotifyDestinationSpec[], now: number): Promise<void> {
  const keys: string[] = [];
  for (const spec of specs) {
    const key = destinationKey(spec);
    keys.push(key);
    const { kind, ...settings } = spec;
    await trx
      .insertInto('notify_destinations')
      .values({ company_id: companyId, kind, settings: JSON.stringify(settings), config_key: key, created_at: now })
      .onConflict((oc) => oc.columns(['company_id', 'config_key']).doNothing())
      .execute();
  }
  let drop = trx.deleteFrom('notify_destinations').where('company_id', '=', companyId);
  if (keys.length > 0) drop = drop.where('config_key', 'not in', keys);
  await drop.execute();
}
