import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Members the config names as admins of a company's chat (`companies[].slack.admins`): they may link and subscribe.
  await db.schema
    .createTable('chat_admins')
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('slack', 'discord')`))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_admins_pk', ['company_id', 'platform', 'user_id'])
    .execute();
}
