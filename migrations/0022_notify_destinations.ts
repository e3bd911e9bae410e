import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { withId } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A company's paging and chat destinations, as its config declares them. `settings` is JSON and holds
  // the destination's secrets (routing key, API key, bot token): only the publishers read it.
  // `config_key` is a digest of kind and settings: an entry that changes is another destination.
  await withId(db, db.schema.createTable('notify_destinations'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('pagerduty', 'opsgenie', 'teams', 'telegram')`))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('config_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('notify_destinations_key', ['company_id', 'config_key'])
    .execute();

  // The first message a destination posted about an incident (Telegram's), which its later messages reply to.
  await db.schema
    .createTable('notify_messages')
    .addColumn('destination_id', 'bigint', (c) => c.notNull().references('notify_destinations.id').onDelete('cascade'))
    .addColumn('incident_id', 'bigint', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('notify_messages_pk', ['destination_id', 'incident_id'])
    .execute();
}
