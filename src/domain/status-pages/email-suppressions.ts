import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/*
 * Addresses that unsubscribed from a page through a mail's link, so that an
 * apply of a config that still lists them does not sign them up again. Kept
 * as a digest of the address: the list says whether an address left, not who.
 * An address that signs up again on the page and confirms is taken off it.
 */

const digestOf = (email: string): string => createHash('sha256').update(email.toLowerCase()).digest('hex');

export async function suppressAddress(trx: Kysely<Database>, pageId: number, email: string, now: number): Promise<void> {
  await trx
    .insertInto('email_suppressions')
    .values({ status_page_id: pageId, address_digest: digestOf(email), suppressed_at: now })
    .onConflict((oc) => oc.columns(['status_page_id', 'address_digest']).doNothing())
    .execute();
}

export async function isSuppressed(trx: Kysely<Database>, pageId: number, email: string): Promise<boolean> {
  const row = await trx
    .selectFrom('email_suppressions')
    .select('suppressed_at')
    .where('status_page_id', '=', pageId)
    .where('address_digest', '=', digestOf(email))
    .executeTakeFirst();
  return row !== undefined;
}

export async function liftSuppression(trx: Kysely<Database>, pageId: number, email: string): Promise<void> {
  await trx.deleteFrom('email_suppressions').where('status_page_id', '=', pageId).where('address_digest', '=', digestOf(email)).execute();
}
