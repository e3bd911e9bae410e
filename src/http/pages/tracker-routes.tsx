import { trackedMaintenance } from '../../domain/read/pages/tracked-maintenance.js';
import { trackedIncident, trackedService } from '../../domain/read/pages/tracker-view.js';
import type { PublicRoute } from './public-route.js';
import { HTML } from './public-route.js';
import { renderPage } from './render/layout.js';
import { MaintenancePage } from './render/maintenance-page.js';
import { ServicePage, TrackedIncidentPage } from './render/tracker-pages.js';
import { idParam } from './status-page-routes.js';

/** The pages behind every `tracker_url` the API hands out. */
export const trackerRoutes: PublicRoute[] = [
  {
    method: 'GET',
    path: '/services/:urlname',
    cacheable: true,
    handle: async ({ ctx, params }) => ({
      status: 200,
      contentType: HTML,
      body: renderPage(<ServicePage service={await trackedService(ctx, params.urlname!)} now={ctx.clock.now()} />),
    }),
  },
  {
    method: 'GET',
    path: '/incidents/:id',
    cacheable: true,
    handle: async ({ ctx, params }) => {
      const { incident, page } = await trackedIncident(ctx, idParam(params.id));
      return { status: 200, contentType: HTML, body: renderPage(<TrackedIncidentPage incident={incident} page={page} />) };
    },
  },
  {
    method: 'GET',
    path: '/maintenances/:id',
    cacheable: true,
    handle: async ({ ctx, params }) => {
      const { maintenance, page } = await trackedMaintenance(ctx, idParam(params.id));
      return { status: 200, contentType: HTML, body: renderPage(<MaintenancePage maintenance={maintenance} page={page} />) };
    },
  },
];
