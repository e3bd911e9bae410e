import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The drops of an agent's run recorded so far (the run's total, as it last reported it), so that a batch sent again
  // after its answer was lost, with results added since, does not count the same drops twice.
  await db.schema.alterTable('agent_reports').addColumn('run_dropped', 'bigint').execute();
}
