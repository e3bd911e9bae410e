import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Signed Slack and Discord requests already taken, by a digest of what was signed, kept while their
  // signature is valid: a replay, on any replica, finds its row and is answered without acting again.
  await db.schema
    .createTable('seen_chat_requests')
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('seen_chat_requests_pk', ['platform', 'digest'])
    .execute();
  await db.schema.createIndex('seen_chat_requests_expiry').on('seen_chat_requests').columns(['platform', 'expires_at']).execute();
}
