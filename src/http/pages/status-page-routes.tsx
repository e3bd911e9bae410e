import { notFound } from '../../domain/errors.js';
import { monitorPanels } from '../../domain/read/pages/monitor-panels.js';
import { pageHistory, pageIncident, pageView } from '../../domain/read/pages/page-view.js';
import type { PublicRoute } from './public-route.js';
import { HTML } from './public-route.js';
import { renderPage } from './render/layout.js';
import { MonitorPanel } from './render/monitor-panel.js';
import { HistoryPage, IncidentPage, StatusPage } from './render/status-page.js';

/** Integer ids in paths and queries; anything else names nothing. */
export function idParam(value: string | undefined | null): number {
  if (value === undefined || value === null || !/^(?:0|[1-9][0-9]{0,14})$/.test(value)) throw notFound();
  return Number(value);
}

export const statusPageRoutes: PublicRoute[] = [
  {
    method: 'GET',
    path: '/status/:slug',
    cacheable: true,
    handle: async ({ ctx, params, base }) => {
      const view = await pageView(ctx, params.slug!);
      const panels = await monitorPanels(ctx, view.page);
      const monitors =
        panels.length === 0 ? null : (
          <section aria-labelledby="monitors">
            <h2 id="monitors">Monitors</h2>
            {panels.map((m) => (
              <MonitorPanel monitor={m} base={base} />
            ))}
          </section>
        );
      return {
        status: 200,
        contentType: HTML,
        body: renderPage(<StatusPage view={view} base={base} monitors={monitors} />),
        lastModified: view.updatedAt,
        undatedParts: true,
      };
    },
  },
  {
    method: 'GET',
    path: '/status/:slug/incidents/:id',
    cacheable: true,
    handle: async ({ ctx, params, base }) => {
      const { page, incident } = await pageIncident(ctx, params.slug!, idParam(params.id));
      return {
        status: 200,
        contentType: HTML,
        body: renderPage(<IncidentPage page={page} incident={incident} base={base} />),
        lastModified: incident.updatedAt,
      };
    },
  },
  {
    method: 'GET',
    path: '/status/:slug/history',
    cacheable: true,
    queryKeys: ['page'],
    handle: async ({ ctx, params, query, base }) => {
      const number = query.has('page') ? idParam(query.get('page')) : 1;
      if (number < 1) throw notFound();
      const history = await pageHistory(ctx, params.slug!, number);
      return {
        status: 200,
        contentType: HTML,
        body: renderPage(<HistoryPage page={history.page} incidents={history.incidents} number={number} more={history.more} base={base} />),
      };
    },
  },
];
