import { sql } from 'kysely';
import type { CompiledQuery, Kysely } from 'kysely';
import { batchWrites } from '../../../db/dialect.js';
import { prepared } from '../../../db/prepared.js';
import type { Database } from '../../../db/schema.js';
import { guardedOutboxWrites, outboxWrites } from '../../notifications/enqueue.js';
import { statusFactsAre, statusFactsOf, statusWith } from '../../services/service-status.js';
import type { StatusFacts } from '../../services/service-status.js';
import type { Message } from './change-messages.js';
import type { ChangeScope } from './change-scope.js';
import type { StoredChange } from './incident-change.js';
import { restatedMove } from './update-writes.js';
import type { StatusMove } from './update-writes.js';

type Guard = 'service' | 'now' | 'except' | 'indicator' | 'maintenance' | 'major' | 'minor';

/** Whether the service's facts are still those of the scope: the part named `read` of the consequences' writes (see batchWrites). */
const factsUnchanged = prepared<Guard, { held: boolean }>((db, p) =>
  db.selectNoFrom((eb) =>
    sql<boolean>`${statusFactsAre(eb, p.service, p.now, p.except, { indicator: p.indicator, maintenance: p.maintenance, major: p.major, minor: p.minor })}`.as(
      'held',
    ),
  ),
);
const guardedOutbox = guardedOutboxWrites(sql<boolean>`(select held from read)`);

export interface Consequences {
  /** The writes that nothing reads back (the incidents', their timelines', the pages', the audit's). */
  writes: CompiledQuery[];
  /** The service's move as the scope read it. */
  move: StatusMove;
  /** The move as other facts of the service give it. */
  moveFrom: (facts: StatusFacts | undefined) => StatusMove;
  /** The messages of the changes, the service having moved so. */
  messagesFor: (move: StatusMove) => Message[];
  /** The one change of one incident (a guarded scope's). */
  single: StoredChange | null;
  now: number;
}

/**
 * Writes the consequences in one batch. Where the scope's facts may predate
 * the lock (see ChangeScope.guarded), the messages that depend on them are
 * queued only if they still hold; else they are told from the facts as the
 * lock now keeps them, and the move the change's last update records is said again.
 */
export async function writeConsequences(trx: Kysely<Database>, scope: ChangeScope, c: Consequences): Promise<void> {
  const expected = c.messagesFor(c.move);
  if (!scope.guarded) {
    await batchWrites(trx, [
      ...c.writes,
      ...outboxWrites(
        trx,
        expected.map((m) => m.row),
      ),
    ]);
    return;
  }
  const change = c.single!;
  const id = change.incident.id;
  const facts: Record<Guard, unknown> = {
    service: scope.service.id,
    now: c.now,
    except: id,
    indicator: scope.facts.indicator,
    maintenance: Boolean(scope.facts.maintenance),
    major: Boolean(scope.facts.major),
    minor: Boolean(scope.facts.minor),
  };
  const [check] = await batchWrites(trx, [...c.writes, ...guardedOutbox(trx, expected)], factsUnchanged.bind(trx, facts));
  if (check?.held) return;
  // The facts moved before the lock was taken; the lock keeps them now.
  const held = await statusFactsOf(trx, scope.service.id, c.now, id);
  const actual = c.moveFrom(held);
  const restated = change.posted.length > 0 ? [restatedMove(trx, id, { before: statusWith(held, change.before, c.now), after: actual.after })] : [];
  const told = c
    .messagesFor(actual)
    .filter((m) => m.guarded)
    .map((m) => m.row);
  await batchWrites(trx, [...restated, ...outboxWrites(trx, told)]);
}
