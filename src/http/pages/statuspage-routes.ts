import type { PageView } from '../../domain/read/pages/page-view.js';
import { pageFeed, pageView } from '../../domain/read/pages/page-view.js';
import { componentsDocument, incidentsDocument, maintenancesDocument, statusDocument, summaryDocument, unresolvedDocument } from './page-documents.js';
import type { PublicRoute } from './public-route.js';
import { JSON_TYPE } from './public-route.js';

/** A document of the page's view as JSON. */
function fromView(path: string, document: (view: PageView) => unknown): PublicRoute {
  return {
    method: 'GET',
    path: `/status/:slug/api/v2/${path}`,
    cacheable: true,
    statuspageApi: true,
    handle: async ({ ctx, params }) => {
      const view = await pageView(ctx, params.slug!);
      // Monitors, vendors and the clock move these documents without a dated change (see PublicReply.undatedParts).
      return { status: 200, contentType: JSON_TYPE, body: JSON.stringify(document(view)), lastModified: view.updatedAt, undatedParts: true };
    },
  };
}

/**
 * Atlassian Statuspage's public API (v2), the same documents at the same
 * paths, so that its clients, widgets and aggregators read a statusbot page
 * as they read a Statuspage one: under /status/{slug}/, and at the root of a
 * page's own host.
 */
export const statuspageRoutes: PublicRoute[] = [
  fromView('summary.json', summaryDocument),
  fromView('status.json', statusDocument),
  fromView('components.json', componentsDocument),
  {
    method: 'GET',
    path: '/status/:slug/api/v2/incidents.json',
    cacheable: true,
    statuspageApi: true,
    handle: async ({ ctx, params }) => {
      const [view, feed] = await Promise.all([pageView(ctx, params.slug!), pageFeed(ctx, params.slug!)]);
      return { status: 200, contentType: JSON_TYPE, body: JSON.stringify(incidentsDocument(view, feed.incidents)), lastModified: feed.updatedAt };
    },
  },
  fromView('incidents/unresolved.json', unresolvedDocument),
  fromView('scheduled-maintenances.json', (view) => maintenancesDocument(view, 'all')),
  fromView('scheduled-maintenances/upcoming.json', (view) => maintenancesDocument(view, 'upcoming')),
  fromView('scheduled-maintenances/active.json', (view) => maintenancesDocument(view, 'active')),
];
