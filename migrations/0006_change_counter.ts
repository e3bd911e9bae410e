import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Counts write transactions; read caches compare it (PostgreSQL; SQLite has total_changes and data_version).
  await sql`insert into meta (key, value) values ('changes', '0')`.execute(db);
}
