import { listOutbox, retryDead } from '../delivery/outbox-queue.js';
import { UsageError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';
import { plural } from '../domain/plural.js';

/** `statusbot outbox list`, as commands.ts describes it. */
export async function runOutboxList(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  const dead = input.flag('dead');
  return withContext(input.dbPath, async (ctx) => {
    const rows = await listOutbox(ctx, dead ? { state: 'dead' } : {});
    if (rows.length === 0) input.out(dead ? 'no dead notifications' : 'the outbox is empty');
    for (const row of rows) {
      const when = (row.sentAt ?? row.nextAttemptAt).toISOString();
      const error = row.lastError ? `  ${row.lastError}` : '';
      input.out(`${row.id}\t${row.state}\t${row.event}\t${row.stream}\tattempts ${row.attempts}\t${when}${error}`);
    }
    return 0;
  });
}

/** `statusbot outbox retry`, as commands.ts describes it. */
export async function runOutboxRetry(input: CommandInput): Promise<number> {
  const ids = input.operands.map((id) => {
    if (!/^\d+$/.test(id)) throw new UsageError(`"${id}" is not an outbox row id; statusbot outbox list --dead shows them`);
    return Number(id);
  });
  mustExist(input.dbPath);
  return withContext(input.dbPath, async (ctx) => {
    const count = await retryDead(ctx, ids);
    input.out(`${plural(count, 'dead notification')} back in line; a running server delivers them`);
    return 0;
  });
}
