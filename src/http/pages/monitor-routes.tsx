import type { MonitorPanelData } from '../../domain/read/pages/monitor-panels.js';
import { pageMonitor } from '../../domain/read/pages/monitor-panels.js';
import type { ProbeHistory } from '../../domain/monitors/probe-hours.js';
import { notFound } from '../../domain/errors.js';
import type { PublicPage } from '../../domain/status-pages/page-directory.js';
import type { PublicRoute } from './public-route.js';
import { HTML } from './public-route.js';
import { Layout, renderPage } from './render/layout.js';
import { MonitorPanel, MonitorStatus, bucketText, monitorHref } from './render/monitor-panel.js';
import { percent } from './render/page-parts.js';
import { chartSummary, msText } from './render/response-chart.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "22 Nov 10:00": short enough for a phone's table row. */
const hourText = (d: Date): string => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCHours()).padStart(2, '0')}:00`;

/** The monitor's page showing all regions together (no region), or one region's probes. */
const regionHref = (base: string, id: number, region: string | null): string =>
  region === null ? monitorHref(base, id) : `${monitorHref(base, id)}?region=${encodeURIComponent(region)}`;

/**
 * Where more than one region probed the monitor: each region's last 24 hours
 * in words, and plain links that show the page (charts, bars, hours) for one
 * region or for all together; the one shown is marked as the current page.
 */
function RegionChoice(props: { monitor: MonitorPanelData; byRegion: Map<string, ProbeHistory>; region: string | null; base: string }) {
  const { monitor, byRegion, region, base } = props;
  const choices: [string | null, string][] = [[null, 'All regions'], ...[...byRegion.keys()].map((r): [string, string] => [r, r])];
  return (
    <>
      <h2>By region</h2>
      <ul class="plain" aria-label={`Response time of ${monitor.name} by region, last 24 hours`}>
        {[...byRegion].map(([name, history]) => (
          <li>
            <b>{name}</b> {chartSummary(history.hours, 'last 24 hours')}
          </li>
        ))}
      </ul>
      <nav class="choice" aria-labelledby="show-from">
        <span id="show-from">Show probes from</span>
        <ul class="regions">
          {choices.map(([value, label]) => (
            <li>
              <a href={regionHref(base, monitor.id, value)} aria-current={value === region ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}

function MonitorPage(props: { page: PublicPage; monitor: MonitorPanelData; byRegion: Map<string, ProbeHistory>; region: string | null; base: string }) {
  const { page, base, region, byRegion } = props;
  // One region's page shows that region's history in every part that shows history; the status stays the monitor's.
  const monitor = region === null ? props.monitor : { ...props.monitor, history: byRegion.get(region)! };
  const hours = [...monitor.history.hours].reverse();
  const from = region === null ? '' : ` from ${region}`;
  return (
    <Layout title={`${monitor.name}${region === null ? '' : ` · ${region}`} · ${page.name}`} base={base} pageName={page.name}>
      <div class="row">
        <h1>{monitor.name}</h1>
        <MonitorStatus monitor={monitor} />
      </div>
      {byRegion.size > 1 ? <RegionChoice monitor={monitor} byRegion={byRegion} region={region} base={base} /> : null}
      {region === null ? null : <h2>Probes from {region}</h2>}
      <MonitorPanel monitor={monitor} base={base} own region={region ?? undefined} />
      <h2>Last 24 hours{from}</h2>
      <table class="hours">
        <caption class="sr-only">
          Probes of {monitor.name}
          {from} per hour, newest first
        </caption>
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
      <p class="muted">
        Last 24 hours{from} in all: {bucketText(monitor.history.last24Hours)}.
      </p>
      <p>
        <a href={base === '' ? '/' : base}>Back to {page.name}</a>
      </p>
    </Layout>
  );
}

/**
 * The region a monitor page is asked for: null for all together. Only a region
 * the page offers is answered, so that the cache holds at most one copy per
 * region that probed the monitor; any other value names no page.
 */
function regionOf(query: URLSearchParams, byRegion: Map<string, ProbeHistory>): string | null {
  const asked = query.getAll('region');
  if (asked.length === 0) return null;
  const region = asked[0]!;
  if (asked.length > 1 || byRegion.size < 2 || !byRegion.has(region)) throw notFound('region');
  return region;
}

/** A custom monitor's own page on a status page that lists it: uptime and response time history, all regions or one. */
export const monitorRoutes: PublicRoute[] = [
  {
    method: 'GET',
    path: '/status/:slug/monitors/:id',
    cacheable: true,
    queryKeys: ['region'],
    async handle(req) {
      const raw = req.params.id ?? '';
      if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound('monitor');
      const { page, monitor, byRegion } = await pageMonitor(req.ctx, req.params.slug ?? '', Number(raw));
      const region = regionOf(req.query, byRegion);
      return {
        status: 200,
        contentType: HTML,
        body: renderPage(<MonitorPage page={page} monitor={monitor} byRegion={byRegion} region={region} base={req.base} />),
      };
    },
  },
];
