import { z } from 'zod';
import { parseFeedDate, readJson } from './feed-text.js';
import { statuspage } from './statuspage.js';
import type { FeedReader } from './vendor-snapshot.js';

/*
 * incident.io-hosted status pages (status.openai.com, status.incident.io,
 * linearstatus.com, status.recurly.com…) serve Statuspage's `/api/v2`
 * documents, and the Statuspage reader reads them: indicator, components,
 * incidents with their updates, scheduled maintenances, each item on its own.
 *
 * Where incident.io's copy differs from Atlassian's:
 * - a list with nothing in it (`incidents`, `scheduled_maintenances`) comes as
 *   null or not at all, in either document: read here as an empty list, so
 *   that a quiet page is not taken for a broken one;
 * - an incident has no `components` and no `shortlink`: the Statuspage reader
 *   then takes the components its updates affected, and the page's own
 *   `{page}/incidents/{id}`, which is where incident.io shows an incident;
 * - components carry no `group` flag, so none is taken for a group;
 * - there is no `scheduled-maintenances/upcoming.json`: summary.json's
 *   `scheduled_maintenances` is all there is to read of maintenance;
 * - there is no `started_at`, and `created_at` is when the incident was
 *   written: an incident posted after the fact shows its first update at the
 *   time the trouble began, hours before `created_at` (OpenAI's "Since 1:30 PM
 *   Pacific Time…"), so the incident starts at that update;
 * - `resolved_at` keeps the first resolution: an incident resolved, reopened
 *   and resolved again would end before its last updates, so it ends at the
 *   update that resolved it again.
 */

const LISTS = ['incidents', 'scheduled_maintenances'] as const;
const OPEN_STAGES = new Set(['investigating', 'identified', 'monitoring']);
const RESOLVING = new Set(['resolved', 'postmortem']);
const frame = z.looseObject({});

export const incidentio = {
  kind: 'incidentio',
  documents: (url) => statuspage.documents(url),
  parse(bodies, context) {
    const summary = withLists(readJson(bodies[0] ?? '', 'summary.json', frame));
    const list = withLists(readJson(bodies[1] ?? '', 'incidents.json', frame));
    return statuspage.parse([JSON.stringify(summary), JSON.stringify(list)], context);
  },
} satisfies FeedReader<'incidentio'>;

function withLists(document: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...document };
  for (const key of LISTS) filled[key] ??= [];
  if (Array.isArray(filled.incidents)) filled.incidents = filled.incidents.map(withShownTimes);
  return filled;
}

/**
 * The incident with its start and end as its updates show them (see above).
 * Only readable times are compared; anything else is left for the Statuspage
 * reader to judge.
 */
function withShownTimes(item: unknown): unknown {
  if (!isRecord(item) || !Array.isArray(item.incident_updates)) return item;
  const shown = item.incident_updates
    .flatMap((update) => {
      if (!isRecord(update)) return [];
      const text = typeof update.display_at === 'string' ? update.display_at : update.created_at;
      const at = typeof text === 'string' ? parseFeedDate(text) : null;
      return typeof text === 'string' && at !== null ? [{ text, at: at.getTime(), status: update.status }] : [];
    })
    .sort((a, b) => a.at - b.at);
  const timed = { ...item };
  const created = dateOf(item.created_at);
  const first = shown[0];
  if (created !== null && first !== undefined && first.at < created) timed.created_at = first.text;
  const resolved = dateOf(item.resolved_at);
  const reopened = shown.filter((u) => OPEN_STAGES.has(String(u.status))).at(-1);
  if (resolved !== null && reopened !== undefined && reopened.at > resolved) {
    const again = shown.find((u) => u.at > reopened.at && RESOLVING.has(String(u.status)));
    if (again !== undefined) timed.resolved_at = again.text;
  }
  return timed;
}

function dateOf(value: unknown): number | null {
  return typeof value === 'string' ? (parseFeedDate(value)?.getTime() ?? null) : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
