import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { withId } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // `chat.incident_channels` of the company's config: a new major incident gets a channel of its own.
  await db.schema
    .alterTable('companies')
    .addColumn('incident_channels', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  // Who leads an incident: a member of the chat platform it was named on.
  await db.schema
    .createTable('incident_leads')
    .addColumn('incident_id', 'bigint', (c) => c.primaryKey().references('incidents.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('set_by', 'text', (c) => c.notNull())
    .addColumn('set_at', 'bigint', (c) => c.notNull())
    .execute();

  // An incident's own channel. The primary key makes it one per incident whoever asks, on any replica;
  // `attempt` counts the openings asked for, so that a retry after a failure is another outbox row.
  await db.schema
    .createTable('incident_rooms')
    .addColumn('incident_id', 'bigint', (c) => c.primaryKey().references('incidents.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('opening', 'open', 'failed')`))
    .addColumn('attempt', 'bigint', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('incident_rooms_channel').on('incident_rooms').columns(['platform', 'channel_id']).execute();

  // The notes of an incident's timeline, taken in its room. A pinned message is noted once (`message_id`).
  await withId(db, db.schema.createTable('incident_notes'))
    .addColumn('incident_id', 'bigint', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('incident_notes_message', ['incident_id', 'message_id'])
    .execute();
}
