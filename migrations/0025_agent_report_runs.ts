import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Where an agent's results have got to: its run (one per agent process) and the last result recorded of it, so
  // that a batch sent again after its answer was lost is not counted twice.
  await db.schema.alterTable('agent_reports').addColumn('run', 'text').execute();
  await db.schema.alterTable('agent_reports').addColumn('last_seq', 'bigint').execute();
}
