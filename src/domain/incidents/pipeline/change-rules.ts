import type { Selectable } from 'kysely';
import type { IncidentsTable } from '../../../db/schema.js';
import type { ServiceStatus } from '../../model/service.js';
import { statusWith } from '../../services/service-status.js';
import type { StatusFacts } from '../../services/service-status.js';
import type { IncidentEvent } from '../../model/incident.js';
import type { ChangeScope } from './change-scope.js';
import type { ChangeSource, ProposedChange, StoredChange } from './incident-change.js';
import type { StatusMove } from './update-writes.js';

/* The rules of a change: pure, from what the scope read and what the source proposed. */

export const eventOf = (change: ProposedChange): IncidentEvent => {
  if (!change.before) return 'created';
  if (!change.after) return 'deleted';
  if (change.before.row.resolved === 0 && change.after.resolved === 1) return 'resolved';
  if (change.before.row.resolved === 1 && change.after.resolved === 0) return 'reopened';
  return 'updated';
};

const isOpenMajor = (row: Pick<Selectable<IncidentsTable>, 'status' | 'resolved'> | null): boolean =>
  row !== null && row.status === 'major' && row.resolved === 0;

/**
 * Text as it reads back once stored: a lone surrogate (half of a UTF-16 pair)
 * is stored by both engines as the replacement character.
 */
const wellFormed = (text: string): string => (/[\ud800-\udfff]/.test(text) ? text.replace(/[\ud800-\udfff]/gu, '\ufffd') : text);

/** The change with its text as it will read back. */
export const storable = (change: ProposedChange): ProposedChange => {
  const { after } = change;
  return {
    ...change,
    after: after && {
      ...after,
      title: wellFormed(after.title),
      description: wellFormed(after.description),
      components: wellFormed(after.components),
      url: after.url === null ? null : wellFormed(after.url),
    },
    posted: change.posted.map((u) => ({ ...u, description: wellFormed(u.description) })),
  };
};

/**
 * The company's own incidents go to its pages' subscribers, its destinations
 * and the channels following its incidents; a vendor's, the demo's and those
 * opened from user reports (unconfirmed) to the channels following the service.
 */
export const isOwn = (scope: ChangeScope, change: StoredChange): boolean => scope.company !== null && change.incident.userGenerated === false;

/** How chat labels the incident. */
export const labelOf = (source: ChangeSource, own: boolean): 'users' | 'company' | 'vendor' => (source === 'users' ? 'users' : own ? 'company' : 'vendor');

/** The one change of one incident whose scope's facts tell the service's status after it; null when the status is read again. */
export const singleChange = (scope: ChangeScope, made: readonly StoredChange[]): StoredChange | null => (scope.single && made.length === 1 ? made[0]! : null);

/**
 * The service's status before and after the changes, from facts read without
 * the one incident changed (`single`); `toldBefore`, the status the service's
 * followers last heard of, when not the one the facts give (the demo's).
 */
export const statusMoveOf = (facts: StatusFacts | undefined, single: StoredChange | null, now: number, toldBefore?: ServiceStatus): StatusMove => ({
  before: toldBefore ?? statusWith(facts, single ? single.before : null, now),
  after: statusWith(facts, single ? single.after : null, now),
});

/** A status-change message's cause, by default: the title of the first open incident changed, else of the last. */
export const defaultCause = (made: readonly StoredChange[]): string | null =>
  made.find((c) => !c.incident.resolved)?.incident.title ?? made.at(-1)?.incident.title ?? null;

/** The company's own incidents that became major get their room (see openRoomWhenMajor). */
export const becameMajor = (change: StoredChange): boolean =>
  !change.quiet && !change.incident.userGenerated && isOpenMajor(change.after) && !isOpenMajor(change.before);
