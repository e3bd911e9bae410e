import { z } from 'zod';
import { readJson } from './feed-text.js';
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
 *   `scheduled_maintenances` is all there is to read of maintenance.
 */

const LISTS = ['incidents', 'scheduled_maintenances'] as const;
const frame = z.looseObject({});

export const incidentio: FeedReader = {
  kind: 'incidentio',
  documents: (url) => statuspage.documents(url),
  parse(bodies, context) {
    const summary = withLists(readJson(bodies[0] ?? '', 'summary.json', frame));
    const list = withLists(readJson(bodies[1] ?? '', 'incidents.json', frame));
    return statuspage.parse([JSON.stringify(summary), JSON.stringify(list)], context);
  },
};

function withLists(document: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...document };
  for (const key of LISTS) filled[key] ??= [];
  return filled;
}
