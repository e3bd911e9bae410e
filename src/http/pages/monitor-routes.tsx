import type { MonitorPanelData } from '../../domain/monitors/monitor-panels.js';
import { pageMonitor } from '../../domain/monitors/monitor-panels.js';
import { notFound } from '../../domain/errors.js';
import type { PublicPage } from '../../domain/status-pages/page-directory.js';
import type { PublicRoute } from './public-route.js';
import { HTML } from './public-route.js';
import { Layout, renderPage } from './render/layout.js';
import { MonitorPanel, MonitorStatus, bucketText } from './render/monitor-panel.js';
import { percent } from './render/page-parts.js';
import { msText } from './render/response-chart.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "22 Nov 10:00": short enough for a phone's table row. */
const hourText = (d: Date): string => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCHours()).padStart(2, '0')}:00`;

function MonitorPage(props: { page: PublicPage; monitor: MonitorPanelData; base: string }) {
  const { page, monitor, base } = props;
  const hours = [...monitor.history.hours].reverse();
  return (
    <Layout title={`${monitor.name} · ${page.name}`} base={base} pageName={page.name}>
      <div class="row">
        <h1>{monitor.name}</h1>
        <MonitorStatus monitor={monitor} />
      </div>
      <MonitorPanel monitor={monitor} base={base} own />
      <h2>Last 24 hours</h2>
      <table class="hours">
        <caption class="sr-only">Probes of {monitor.name} per hour, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Hour (UTC)</th>
            <th scope="col">Probes</th>
            <th scope="col">Uptime</th>
            <th scope="col">Avg</th>
            <th scope="col">Max</th>
          </tr>
        </thead>
        <tbody>
          {hours.map((h) => (
            <tr>
              <td>
                {/* UTC hours, as the column says: a zone off by half an hour would split them. */}
                <time datetime={h.start.toISOString()} data-utc="">
                  {hourText(h.start)}
                </time>
              </td>
              <td>{h.probes}</td>
              <td>{h.uptime === null ? 'No data' : percent(h.uptime)}</td>
              <td>{h.avgMs === null ? '–' : msText(h.avgMs)}</td>
              <td>{h.maxMs === null ? '–' : msText(h.maxMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">Last 24 hours in all: {bucketText(monitor.history.last24Hours)}.</p>
      <p>
        <a href={base === '' ? '/' : base}>Back to {page.name}</a>
      </p>
    </Layout>
  );
}

/** A custom monitor's own page on a status page that lists it: uptime and response time history. */
export const monitorRoutes: PublicRoute[] = [
  {
    method: 'GET',
    path: '/status/:slug/monitors/:id',
    cacheable: true,
    async handle(req) {
      const raw = req.params.id ?? '';
      if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound('monitor');
      const { page, monitor } = await pageMonitor(req.ctx, req.params.slug ?? '', Number(raw));
      return { status: 200, contentType: HTML, body: renderPage(<MonitorPage page={page} monitor={monitor} base={req.base} />) };
    },
  },
];
