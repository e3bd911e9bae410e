import { XMLBuilder } from 'fast-xml-parser';
import type { Incident, IncidentSummary, IncidentUpdate } from '../../domain/incidents/incident.js';
import type { ServiceStatus } from '../../domain/services/service.js';
import type { PublicPage } from '../../domain/status-pages/page-directory.js';
import type { PageStatus } from '../../domain/status-pages/page-status.js';
import type { FeedEntry, PageView } from '../../domain/status-pages/page-view.js';

/*
 * A status page in the documents of Atlassian Statuspage's public API
 * (`/api/v2/summary.json`, `/api/v2/incidents.json`), so that any aggregator
 * (statusbot's own `statuspage` feed kind among them) can follow it; and as
 * Atom and RSS feeds, one entry per incident update.
 */

const COMPONENT_STATUS: Record<ServiceStatus, string> = {
  ok: 'operational',
  minor: 'degraded_performance',
  major: 'major_outage',
  maintenance: 'under_maintenance',
};
/*
 * Statuspage's indicator has no value for "not known": a page with nothing
 * to show, or only monitors never probed, says `none` (no indicator raised,
 * which is true) and tells why in its description, never "All Systems
 * Operational"; its components claim nothing either (see componentsOf).
 */
const INDICATOR: Record<PageStatus, { indicator: string; description: string }> = {
  ok: { indicator: 'none', description: 'All Systems Operational' },
  minor: { indicator: 'minor', description: 'Minor Service Outage' },
  partial: { indicator: 'major', description: 'Partial System Outage' },
  major: { indicator: 'major', description: 'Major Service Outage' },
  maintenance: { indicator: 'maintenance', description: 'Service Under Maintenance' },
  unknown: { indicator: 'none', description: 'No Data Yet' },
  empty: { indicator: 'none', description: 'Nothing Shown Yet' },
};

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;
const pageId = (page: PublicPage): string => `statusbot-${page.id}`;
const componentId = (serviceId: number): string => `service-${serviceId}`;
const monitorComponentId = (monitorId: number): string => `monitor-${monitorId}`;

function pageOf(page: PublicPage, updatedAt: Date) {
  return { id: pageId(page), name: page.name, url: page.url, time_zone: 'Etc/UTC', updated_at: updatedAt.toISOString() };
}

/**
 * The page's services, then its monitors, as components. A monitor never
 * probed is left out: every component status Statuspage defines claims a
 * state that statusbot did not read, and a component left out claims none.
 */
function componentsOf(view: PageView) {
  const updatedAt = view.updatedAt.toISOString();
  const services = view.services.map((s) => ({
    id: componentId(s.id),
    name: s.name,
    status: COMPONENT_STATUS[s.status],
    created_at: s.days.find((d) => d.status !== 'none')?.start.toISOString() ?? updatedAt,
  }));
  const monitors = view.health.monitors.flatMap((m) =>
    m.status === 'unknown'
      ? []
      : [{ id: monitorComponentId(m.id), name: m.name, status: m.status === 'down' ? 'major_outage' : 'operational', created_at: updatedAt }],
  );
  return [...services, ...monitors].map((c, position) => ({
    ...c,
    updated_at: updatedAt,
    position: position + 1,
    description: null,
    showcase: true,
    start_date: null,
    group_id: null,
    page_id: pageId(view.page),
    group: false,
    only_show_if_degraded: false,
  }));
}

/** An incident as Statuspage writes it: its updates newest first, each naming the affected component. */
export function statuspageIncident(page: PublicPage, incident: Incident | (IncidentSummary & { updates: IncidentUpdate[] })) {
  const component = { code: componentId(incident.serviceId), name: incident.serviceName };
  const status = incident.resolved ? 'resolved' : (incident.updates.at(-1)?.stage ?? 'investigating');
  const updates = [...incident.updates].reverse().map((u, i, all) => ({
    id: `${incident.id}-${all.length - i}`,
    status: u.stage,
    body: u.description,
    incident_id: String(incident.id),
    created_at: u.createdAt.toISOString(),
    updated_at: u.createdAt.toISOString(),
    display_at: u.createdAt.toISOString(),
    affected_components: [{ ...component, old_status: 'operational', new_status: u.stage === 'resolved' ? 'operational' : COMPONENT_STATUS[incident.status] }],
    deliver_notifications: true,
  }));
  const monitoring = incident.updates.find((u) => u.stage === 'monitoring');
  return {
    id: String(incident.id),
    name: incident.title,
    status,
    impact: incident.status,
    created_at: incident.createdAt.toISOString(),
    updated_at: incident.updatedAt.toISOString(),
    started_at: incident.createdAt.toISOString(),
    monitoring_at: iso(monitoring?.createdAt ?? null),
    resolved_at: iso(incident.resolvedAt),
    shortlink: `${page.url}/incidents/${incident.id}`,
    page_id: pageId(page),
    incident_updates: updates,
    components: [{ id: component.code, name: component.name, status: incident.resolved ? 'operational' : COMPONENT_STATUS[incident.status] }],
  };
}

function maintenancesOf(view: PageView) {
  return view.maintenance.map((m, i) => ({
    id: `maintenance-${i + 1}-${m.startsAt.getTime()}`,
    name: `Maintenance of ${m.serviceName}`,
    status: m.active ? 'in_progress' : 'scheduled',
    impact: 'maintenance',
    created_at: m.startsAt.toISOString(),
    updated_at: m.startsAt.toISOString(),
    scheduled_for: m.startsAt.toISOString(),
    scheduled_until: m.endsAt.toISOString(),
    shortlink: view.page.url,
    page_id: pageId(view.page),
    incident_updates: [],
    components: [],
  }));
}

/** `GET /status/{slug}/api/v2/summary.json`. */
export function summaryDocument(view: PageView) {
  return {
    page: pageOf(view.page, view.updatedAt),
    components: componentsOf(view),
    incidents: view.open.map((i) => statuspageIncident(view.page, i)),
    scheduled_maintenances: maintenancesOf(view),
    status: INDICATOR[view.health.status],
  };
}

/** `GET /status/{slug}/api/v2/incidents.json`: the latest incidents (open and resolved), newest first. */
export function incidentsDocument(page: PublicPage, updatedAt: Date, incidents: readonly Incident[]) {
  return { page: pageOf(page, updatedAt), incidents: incidents.map((i) => statuspageIncident(page, i)) };
}

// Values only: the builder escapes them. Characters XML 1.0 cannot hold at all are dropped first.
// biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters, so they are taken out
const xmlText = (text: string): string => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
const xml = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#text', format: true, suppressEmptyNode: true });
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n';

const entryTitle = (e: FeedEntry): string => xmlText(`${e.incident.title} (${e.incident.serviceName}): ${e.update.stage}`);
const entryLink = (page: PublicPage, e: FeedEntry): string => `${page.url}/incidents/${e.incident.id}`;
const entryId = (page: PublicPage, e: FeedEntry): string => `${entryLink(page, e)}#update-${e.number}`;

/** `GET /status/{slug}/feed.atom`: one entry per incident update, newest first. */
export function atomFeed(page: PublicPage, updatedAt: Date, entries: readonly FeedEntry[], self: string): string {
  return (
    DECLARATION +
    xml.build({
      feed: {
        '@xmlns': 'http://www.w3.org/2005/Atom',
        id: `${page.url}/feed.atom`,
        title: xmlText(page.name),
        updated: updatedAt.toISOString(),
        author: { name: xmlText(page.name) },
        link: [
          { '@rel': 'self', '@type': 'application/atom+xml', '@href': self },
          { '@rel': 'alternate', '@type': 'text/html', '@href': page.url },
        ],
        entry: entries.map((e) => ({
          id: entryId(page, e),
          title: entryTitle(e),
          updated: e.update.createdAt.toISOString(),
          published: e.update.createdAt.toISOString(),
          link: { '@rel': 'alternate', '@type': 'text/html', '@href': entryLink(page, e) },
          content: { '@type': 'text', '#text': xmlText(e.update.description) },
        })),
      },
    })
  );
}

/** `GET /status/{slug}/feed.rss`: RSS 2.0, one item per incident update, newest first. */
export function rssFeed(page: PublicPage, updatedAt: Date, entries: readonly FeedEntry[], self: string): string {
  return (
    DECLARATION +
    xml.build({
      rss: {
        '@version': '2.0',
        '@xmlns:atom': 'http://www.w3.org/2005/Atom',
        channel: {
          title: xmlText(page.name),
          link: page.url,
          description: xmlText(`Incidents and their updates on ${page.name}`),
          lastBuildDate: updatedAt.toUTCString(),
          'atom:link': { '@href': self, '@rel': 'self', '@type': 'application/rss+xml' },
          item: entries.map((e) => ({
            title: entryTitle(e),
            link: entryLink(page, e),
            guid: { '@isPermaLink': 'false', '#text': entryId(page, e) },
            pubDate: e.update.createdAt.toUTCString(),
            description: xmlText(e.update.description),
          })),
        },
      },
    })
  );
}

const BADGE_WORDS: Record<PageStatus, string> = {
  ok: 'operational',
  minor: 'degraded',
  partial: 'partial outage',
  major: 'major outage',
  maintenance: 'maintenance',
  unknown: 'no data',
  empty: 'no data',
};
const NO_DATA_GREY = '#6e7781';
const BADGE_COLOURS: Record<PageStatus, string> = {
  ok: '#1a7f37',
  minor: '#9a6700',
  partial: '#cf222e',
  major: '#cf222e',
  maintenance: '#0969da',
  unknown: NO_DATA_GREY,
  empty: NO_DATA_GREY,
};

/** `GET /status/{slug}/badge.svg`: "status | operational", the word always beside the colour. */
export function badgeSvg(status: PageStatus): string {
  const label = 'status';
  const word = BADGE_WORDS[status];
  const lw = 6 * label.length + 12;
  const ww = 6.5 * word.length + 12;
  const w = lw + ww;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${label}: ${word}">
<title>${label}: ${word}</title>
<rect width="${lw}" height="20" fill="#555"/>
<rect x="${lw}" width="${ww}" height="20" fill="${BADGE_COLOURS[status]}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${lw / 2}" y="14">${label}</text>
<text x="${lw + ww / 2}" y="14">${word}</text>
</g>
</svg>
`;
}
