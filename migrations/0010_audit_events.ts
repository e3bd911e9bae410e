import type { Kysely } from 'kysely';
import { withId } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Who changed what, written in the transaction of the change. `company_id` is kept without a reference:
  // the trail of a company outlives the rows it names. `changes` is JSON: field → { from, to }.
  await withId(db, db.schema.createTable('audit_events'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('company_id', 'bigint')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('changes', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_company').on('audit_events').columns(['company_id', 'id']).execute();
  // A start finds the config last applied to each company by this, not by walking the company's whole trail.
  await db.schema.createIndex('audit_events_company_action').on('audit_events').columns(['company_id', 'action', 'id']).execute();
}
