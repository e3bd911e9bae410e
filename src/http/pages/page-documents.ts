import { createHash } from 'node:crypto';
import { XMLBuilder } from 'fast-xml-parser';
import type { Incident, IncidentSummary, IncidentUpdate } from '../../domain/model/incident.js';
import type { ServiceStatus } from '../../domain/model/service.js';
import type { PublicPage } from '../../domain/status-pages/page-directory.js';
import type { PageStatus } from '../../domain/read/pages/page-status.js';
import type { MaintenanceStage, PageMaintenance } from '../../domain/read/pages/page-maintenances.js';
import type { FeedEntry, PageView } from '../../domain/read/pages/page-view.js';
import { FEED_INCIDENTS } from '../../domain/read/pages/page-view.js';
import { updateHtml } from '../../markup/update-text.js';

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
  // Statuspage keeps "Major Service Outage" for its `critical` indicator, which no statusbot status reaches.
  major: { indicator: 'major', description: 'Partial System Outage' },
  maintenance: { indicator: 'maintenance', description: 'Service Under Maintenance' },
  unknown: { indicator: 'none', description: 'No Data Yet' },
  empty: { indicator: 'none', description: 'Nothing Shown Yet' },
};

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;
const pageId = (page: PublicPage): string => `statusbot-${page.id}`;
const componentId = (serviceId: number): string => `service-${serviceId}`;
const monitorComponentId = (monitorId: number): string => `monitor-${monitorId}`;

/** The page object of every document; a page that never showed anything is as old as itself, never dated 1970. */
function pageOf(page: PublicPage, updatedAt: Date) {
  const updated = updatedAt.getTime() > 0 ? updatedAt : page.createdAt;
  return { id: pageId(page), name: page.name, url: page.url, time_zone: 'Etc/UTC', updated_at: updated.toISOString() };
}

/** From the group's name (unique on its page): the id stays when groups are reordered. */
const groupComponentId = (page: PublicPage, name: string): string => `group-${page.id}-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
const COMPONENT_RANK: Record<string, number> = { operational: 0, under_maintenance: 1, degraded_performance: 2, partial_outage: 3, major_outage: 4 };

interface ComponentFields {
  id: string;
  name: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** The fields every Statuspage component has, in Statuspage's order. */
function component(page: PublicPage, c: ComponentFields, position: number, groupId: string | null, group: boolean) {
  return {
    ...c,
    position,
    description: null,
    showcase: !group,
    start_date: null,
    group_id: groupId,
    page_id: pageId(page),
    group,
    only_show_if_degraded: false,
  };
}

/**
 * The page's services in the config's order, then its monitors, as
 * components; a group as Statuspage writes one (`group: true`, its members'
 * ids in `components`), where its first service on the page would stand,
 * right before its members (in the group's order), which name it in
 * `group_id`. Positions count within the top level, and within each group.
 * A monitor never probed is left out: every component status Statuspage
 * defines claims a state that statusbot did not read, and a component left
 * out claims none.
 */
function componentsOf(view: PageView) {
  const page = view.page;
  const services = new Map(
    view.services.map((s) => [
      s.id,
      {
        id: componentId(s.id),
        name: s.name,
        status: COMPONENT_STATUS[s.status],
        created_at: s.createdAt.toISOString(),
        updated_at: s.statusChangedAt.toISOString(),
      } satisfies ComponentFields,
    ]),
  );
  const groupOf = new Map(view.groups.flatMap((g, i) => g.serviceIds.map((id) => [id, i] as const)));
  const all: (ReturnType<typeof component> & { components?: string[] })[] = [];
  let position = 0;
  const placed = new Set<number>();
  for (const s of view.services) {
    const groupIndex = groupOf.get(s.id);
    if (groupIndex === undefined) {
      all.push(component(page, services.get(s.id)!, ++position, null, false));
      continue;
    }
    // A group stands where its first service would.
    if (placed.has(groupIndex)) continue;
    placed.add(groupIndex);
    const group = view.groups[groupIndex]!;
    const members = group.serviceIds.map((id) => services.get(id)!);
    const id = groupComponentId(page, group.name);
    const worst = members.reduce((w, m) => (COMPONENT_RANK[m.status]! > COMPONENT_RANK[w]! ? m.status : w), 'operational');
    all.push({
      ...component(
        page,
        {
          id,
          name: group.name,
          status: worst,
          created_at: members.map((m) => m.created_at).sort()[0]!,
          updated_at: members
            .map((m) => m.updated_at)
            .sort()
            .at(-1)!,
        },
        ++position,
        null,
        true,
      ),
      components: members.map((m) => m.id),
    });
    for (const [i, m] of members.entries()) all.push(component(page, m, i + 1, id, false));
  }
  for (const m of view.health.monitors) {
    if (m.status === 'unknown') continue;
    const fields = {
      id: monitorComponentId(m.id),
      name: m.name,
      status: m.status === 'down' ? 'major_outage' : 'operational',
      created_at: m.createdAt.toISOString(),
      updated_at: m.statusChangedAt.toISOString(),
    };
    all.push(component(page, fields, ++position, null, false));
  }
  return all;
}

type Component = ReturnType<typeof componentsOf>[number];

/** The page's components by id, as componentsOf writes them, for the documents that name some. */
function componentIndex(view: PageView): Map<string, Component> {
  return new Map(componentsOf(view).map((c) => [c.id, c]));
}

/** A service's component as the page states it now; one the page no longer shows, as it was when made. */
function componentOf(view: PageView, index: Map<string, Component>, service: { id: number; name: string }, at: Date): Component {
  const id = componentId(service.id);
  return (
    index.get(id) ??
    component(view.page, { id, name: service.name, status: 'operational', created_at: at.toISOString(), updated_at: at.toISOString() }, 0, null, false)
  );
}

/**
 * Statuspage's `reminder_intervals` for an item of which statusbot sends no
 * reminders: `"[]"`, reminders off. Null would claim Statuspage's default,
 * reminders 3, 6, 12 and 24 hours on.
 */
const NO_REMINDERS = '[]';

/**
 * An incident as Statuspage writes it: its updates newest first, each naming
 * the component's status before it and after it, as recorded when it was
 * posted; an update with none recorded names no component (`null`, as
 * Statuspage writes such an update).
 */
function statuspageIncident(view: PageView, index: Map<string, Component>, incident: Incident | (IncidentSummary & { updates: IncidentUpdate[] })) {
  const page = view.page;
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
    affected_components: u.serviceStatus
      ? [{ ...component, old_status: COMPONENT_STATUS[u.serviceStatus.before], new_status: COMPONENT_STATUS[u.serviceStatus.after] }]
      : null,
    deliver_notifications: true,
    custom_tweet: null,
    tweet_id: null,
  }));
  const monitoring = incident.updates.find((u) => u.stage === 'monitoring');
  return {
    id: String(incident.id),
    name: incident.title,
    status,
    created_at: incident.createdAt.toISOString(),
    updated_at: incident.updatedAt.toISOString(),
    monitoring_at: iso(monitoring?.createdAt ?? null),
    resolved_at: iso(incident.resolvedAt),
    impact: incident.status,
    shortlink: `${page.url}/incidents/${incident.id}`,
    started_at: incident.createdAt.toISOString(),
    page_id: pageId(page),
    incident_updates: updates,
    components: [componentOf(view, index, { id: incident.serviceId, name: incident.serviceName }, incident.createdAt)],
    reminder_intervals: NO_REMINDERS,
  };
}

/** Statuspage's words for an update of a maintenance that reached each stage. */
const MAINTENANCE_UPDATE: Record<MaintenanceStage, string> = {
  scheduled: 'We will be undergoing scheduled maintenance during this time.',
  in_progress: 'Scheduled maintenance is currently in progress. We will provide updates as necessary.',
  completed: 'The scheduled maintenance has been completed.',
};

/** A maintenance as Statuspage writes a scheduled maintenance: one update per stage it reached, newest first. */
function statuspageMaintenance(view: PageView, index: Map<string, Component>, m: PageMaintenance) {
  const id = `maintenance-${m.key}`;
  const reached: { stage: MaintenanceStage; at: Date }[] = [
    { stage: 'scheduled', at: m.createdAt },
    ...(m.stage !== 'scheduled' ? [{ stage: 'in_progress' as const, at: m.startsAt }] : []),
    ...(m.stage === 'completed' ? [{ stage: 'completed' as const, at: m.endsAt }] : []),
  ];
  return {
    id,
    name: m.title,
    status: m.stage,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
    monitoring_at: null,
    resolved_at: m.stage === 'completed' ? m.endsAt.toISOString() : null,
    impact: 'maintenance',
    shortlink: view.page.url,
    started_at: m.createdAt.toISOString(),
    page_id: pageId(view.page),
    incident_updates: reached.reverse().map((r, i, all) => ({
      id: `${id}-${all.length - i}`,
      status: r.stage,
      body: r.stage === 'scheduled' && m.description ? m.description : MAINTENANCE_UPDATE[r.stage],
      incident_id: id,
      created_at: r.at.toISOString(),
      updated_at: r.at.toISOString(),
      display_at: r.at.toISOString(),
      affected_components: m.services.map((s) => ({
        code: componentId(s.id),
        name: s.name,
        old_status: r.stage === 'in_progress' ? 'operational' : r.stage === 'completed' ? 'under_maintenance' : 'operational',
        new_status: r.stage === 'in_progress' ? 'under_maintenance' : 'operational',
      })),
      deliver_notifications: true,
      custom_tweet: null,
      tweet_id: null,
    })),
    components: m.services.map((s) => componentOf(view, index, s, m.createdAt)),
    scheduled_for: m.startsAt.toISOString(),
    scheduled_until: m.endsAt.toISOString(),
    reminder_intervals: NO_REMINDERS,
  };
}

/** Which scheduled maintenances a document lists: Statuspage's three endpoints. */
export type MaintenanceSelection = 'all' | 'upcoming' | 'active';

/**
 * `all`: the 50 most recent (by start, newest first), whatever their stage;
 * `upcoming`: those still scheduled; `active`: those in progress.
 */
function maintenancesOf(view: PageView, index: Map<string, Component>, selection: MaintenanceSelection) {
  const chosen = view.maintenances.filter((m) => selection === 'all' || m.stage === (selection === 'upcoming' ? 'scheduled' : 'in_progress'));
  return chosen
    .sort((a, b) => b.startsAt.getTime() - a.startsAt.getTime())
    .slice(0, FEED_INCIDENTS)
    .map((m) => statuspageMaintenance(view, index, m));
}

/** `GET …/api/v2/summary.json`: status, components, unresolved incidents, upcoming and in-progress maintenance. */
export function summaryDocument(view: PageView) {
  const index = componentIndex(view);
  return {
    page: pageOf(view.page, view.updatedAt),
    components: [...index.values()],
    incidents: view.open.map((i) => statuspageIncident(view, index, i)),
    scheduled_maintenances: maintenancesOf(view, index, 'all').filter((m) => m.status !== 'completed'),
    status: INDICATOR[view.health.status],
  };
}

/** `GET …/api/v2/status.json`. */
export function statusDocument(view: PageView) {
  return { page: pageOf(view.page, view.updatedAt), status: INDICATOR[view.health.status] };
}

/** `GET …/api/v2/components.json`. */
export function componentsDocument(view: PageView) {
  return { page: pageOf(view.page, view.updatedAt), components: componentsOf(view) };
}

/** `GET …/api/v2/incidents/unresolved.json`: open incidents, newest first. */
export function unresolvedDocument(view: PageView) {
  const index = componentIndex(view);
  return { page: pageOf(view.page, view.updatedAt), incidents: view.open.map((i) => statuspageIncident(view, index, i)) };
}

/** `GET …/api/v2/scheduled-maintenances.json`, `…/upcoming.json`, `…/active.json`. */
export function maintenancesDocument(view: PageView, selection: MaintenanceSelection) {
  return { page: pageOf(view.page, view.updatedAt), scheduled_maintenances: maintenancesOf(view, componentIndex(view), selection) };
}

/** `GET …/api/v2/incidents.json`: the latest incidents (open and resolved), newest first by `created_at`. */
export function incidentsDocument(view: PageView, incidents: readonly Incident[]) {
  const index = componentIndex(view);
  const newestFirst = [...incidents].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
  return { page: pageOf(view.page, view.updatedAt), incidents: newestFirst.map((i) => statuspageIncident(view, index, i)) };
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
          content: { '@type': 'html', '#text': xmlText(updateHtml(e.update.description)) },
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
            description: xmlText(updateHtml(e.update.description)),
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
