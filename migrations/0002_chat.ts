import type { Kysely } from 'kysely';
import { withId } from './engine.js';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A Slack workspace (team id) or Discord guild acts for exactly one company.
  await db.schema
    .createTable('chat_links')
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_links_pk', ['platform', 'workspace_id'])
    .execute();

  // What a channel follows: the company's incidents, one service's status, a monitor, or a board's digest.
  await withId(db, db.schema.createTable('channel_subscriptions'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('incidents', 'service', 'monitor', 'board')`))
    .addColumn('service_id', 'bigint', (c) => c.references('services.id').onDelete('cascade'))
    .addColumn('monitor_id', 'bigint', (c) => c.references('custom_monitors.id').onDelete('cascade'))
    .addColumn('board_id', 'text', (c) => c.references('boards.id').onDelete('cascade'))
    // 'incidents', 'service:<id>', 'monitor:<id>' or 'board:<id>': one subscription per channel and target.
    .addColumn('target_key', 'text', (c) => c.notNull())
    .addColumn('schedule', 'text')
    .addColumn('timezone', 'text')
    .addColumn('only_on_change', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('edit_in_place', 'bigint', (c) => c.notNull().defaultTo(0))
    // Fingerprint of the last digest posted, for only_on_change.
    .addColumn('last_digest', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('channel_subscriptions_target', ['platform', 'channel_id', 'target_key'])
    .execute();
  await db.schema.createIndex('channel_subscriptions_company').on('channel_subscriptions').columns(['company_id', 'kind']).execute();
  await db.schema.createIndex('channel_subscriptions_service').on('channel_subscriptions').column('service_id').execute();
  await db.schema.createIndex('channel_subscriptions_monitor').on('channel_subscriptions').column('monitor_id').execute();

  // The message that shows an incident in a channel, edited in place as the incident changes.
  await db.schema
    .createTable('chat_messages')
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_messages_pk', ['platform', 'channel_id', 'subject'])
    .execute();

  // Delivery bookkeeping: which steps of a row are done, and which process holds it.
  await db.schema.alterTable('outbox').addColumn('progress', 'text').execute();
  await db.schema.alterTable('outbox').addColumn('lease_until', 'bigint').execute();
}
