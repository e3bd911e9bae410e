import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/*
 * Addresses that unsubscribed from a page through a mail's link, so that an
 * apply of a config that still lists them does not sign them up again. Kept
 * as a digest of the address: the list says whether an address left, not who.
 * An address that signs up again on the page and confirms is taken off it.
 */

const keyOf = (pageId: number, email: string): string => `email_unsubscribed:${pageId}:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;

export async function suppressAddress(trx: Kysely<Database>, pageId: number, email: string, now: number): Promise<void> {
  await trx
    .insertInto('meta')
    .values({ key: keyOf(pageId, email), value: new Date(now).toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

export async function isSuppressed(trx: Kysely<Database>, pageId: number, email: string): Promise<boolean> {
  return (await trx.selectFrom('meta').select('key').where('key', '=', keyOf(pageId, email)).executeTakeFirst()) !== undefined;
}

export async function liftSuppression(trx: Kysely<Database>, pageId: number, email: string): Promise<void> {
  await trx.deleteFrom('meta').where('key', '=', keyOf(pageId, email)).execute();
}
