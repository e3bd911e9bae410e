import { plural } from '../plural.js';
import { KINDS } from './setup-snapshot.js';
import type { Kind, SetupSnapshot } from './setup-snapshot.js';

/** What an apply made of one kind of thing. */
export interface KindChanges {
  /** Singular and plural, as the summary says them. */
  kind: readonly [string, string];
  added: number;
  changed: number;
  removed: number;
}

/** The kinds that changed between two snapshots, in the summary's order; none when nothing did. */
export function changesBetween(before: SetupSnapshot, after: SetupSnapshot): KindChanges[] {
  const changes: KindChanges[] = [];
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const [was, is] = [before[kind], after[kind]];
    let added = 0;
    let changed = 0;
    for (const [key, value] of is) {
      if (!was.has(key)) added++;
      else if (was.get(key) !== value) changed++;
    }
    const removed = [...was.keys()].filter((key) => !is.has(key)).length;
    if (added + changed + removed > 0) changes.push({ kind: KINDS[kind], added, changed, removed });
  }
  return changes;
}

/** `2 companies added, 1 service changed, 1 subscriber removed`, or `no changes`. */
export function describeChanges(changes: readonly KindChanges[]): string {
  const parts = changes.flatMap(({ kind: [one, many], ...counts }) =>
    (['added', 'changed', 'removed'] as const).filter((what) => counts[what] > 0).map((what) => `${plural(counts[what], one, many)} ${what}`),
  );
  return parts.length > 0 ? parts.join(', ') : 'no changes';
}

/** `ops@acme.example on Acme status (companies.0.status_pages.0.subscribers.0)`: config subscribers left out, one per line. */
export function describeSuppressed(
  suppressed: readonly { path: readonly (string | number)[]; email: string; page: string }[],
  locate?: (path: readonly (string | number)[]) => string,
): string[] {
  return suppressed.map(
    (s) =>
      `subscriber suppressed: ${s.email} on ${s.page} unsubscribed through a mail's link (${locate ? locate(s.path) : s.path.join('.')}); remove the entry, or the address signs up again on the page`,
  );
}
