import { z } from 'zod';
import { documentList, feedDate, innerList, lenient, readItems } from './feed-text.js';

// What statusbot reads of Statuspage's `/api/v2` documents. Other fields are
// ignored. A document's frame (its status, its lists being lists) is checked
// whole; each incident, maintenance, component and update is read on its own,
// so that one the reader cannot use is skipped and the rest is read. Fields
// that compatible providers (incident.io) or older pages omit, or send as
// null, are optional: only an id, a name and readable dates are required.

const page = lenient(z.object({ url: lenient(z.string()) }));

export const summaryFrame = z.object({
  page,
  status: z.object({ indicator: z.enum(['none', 'minor', 'major', 'critical', 'maintenance']) }),
  components: documentList,
  incidents: documentList,
  scheduled_maintenances: documentList,
});

export const incidentsFrame = z.object({
  page,
  incidents: z.array(z.unknown()),
});

const component = z.object({ name: z.string(), status: z.string(), group: lenient(z.boolean()) });

const named = z.object({ name: z.string() });

const update = z.object({
  status: lenient(z.string()),
  body: lenient(z.string()),
  created_at: feedDate.nullish(),
  display_at: feedDate.nullish(),
  affected_components: innerList,
});

const incident = z.object({
  id: z.string().min(1),
  name: z.string(),
  status: lenient(z.string()),
  impact: lenient(z.string()),
  shortlink: lenient(z.string()),
  created_at: feedDate.nullish(),
  started_at: feedDate.nullish(),
  updated_at: feedDate.nullish(),
  resolved_at: feedDate.nullish(),
  components: innerList,
  incident_updates: innerList,
});

// A maintenance is its window: one the feed gives no time at all has none to show.
const maintenance = incident
  .extend({ scheduled_for: feedDate.nullish(), scheduled_until: feedDate.nullish() })
  .refine((m) => (m.scheduled_for ?? m.started_at ?? m.created_at) != null, { message: 'is missing', path: ['scheduled_for'] });

// The documents whole, every item readable: what a page serving Statuspage's
// JSON must publish for readers like this one to take all of it.
const strictIncident = incident.extend({
  components: z.array(named).nullish(),
  incident_updates: z.array(update.extend({ affected_components: z.array(named).nullish() })).nullish(),
});
export const statuspageSummary = summaryFrame.extend({
  components: z.array(component).nullish(),
  incidents: z.array(strictIncident).nullish(),
  scheduled_maintenances: z.array(strictIncident.extend({ scheduled_for: feedDate.nullish(), scheduled_until: feedDate.nullish() })).nullish(),
});
export const statuspageIncidents = incidentsFrame.extend({ incidents: z.array(strictIncident) });

// Older pages fill an update that touched no component with this sentence, as if it were one.
const NO_COMPONENT = /^No components were affected by this update\.?$/i;

export type StatuspageIndicator = z.output<typeof summaryFrame>['status']['indicator'];

export interface StatuspageUpdate {
  status: string | null;
  body: string | null;
  createdAt: Date | null;
  displayAt: Date | null;
  /** Names of the components the update changed. */
  affected: string[];
}

export interface StatuspageIncident {
  id: string;
  name: string;
  status: string | null;
  impact: string | null;
  shortlink: string | null;
  createdAt: Date | null;
  startedAt: Date | null;
  updatedAt: Date | null;
  resolvedAt: Date | null;
  /** Names of the components the incident lists as affected. */
  components: string[];
  /** As the API lists them: newest first. */
  updates: StatuspageUpdate[];
}

export interface StatuspageMaintenance extends StatuspageIncident {
  /** When it starts: `scheduled_for`, else when it started or was created. */
  startsAt: Date;
  scheduledUntil: Date | null;
}

export interface StatuspageComponent {
  name: string;
  status: string;
  group: boolean;
}

export function readComponents(list: readonly unknown[], where: string, skipped: string[]): StatuspageComponent[] {
  return readItems(list, where, component, skipped, (c) => ({ name: c.name, status: c.status, group: c.group === true }));
}

export function readIncidents(list: readonly unknown[], where: string, skipped: string[]): StatuspageIncident[] {
  return readItems(list, where, incident, skipped, (item, itemWhere) => toIncident(item, itemWhere, skipped));
}

export function readMaintenances(list: readonly unknown[], where: string, skipped: string[]): StatuspageMaintenance[] {
  return readItems(list, where, maintenance, skipped, (item, itemWhere) => ({
    ...toIncident(item, itemWhere, skipped),
    startsAt: (item.scheduled_for ?? item.started_at ?? item.created_at)!,
    scheduledUntil: item.scheduled_until ?? null,
  }));
}

function toIncident(item: z.output<typeof incident>, where: string, skipped: string[]): StatuspageIncident {
  return {
    id: item.id,
    name: item.name,
    status: item.status ?? null,
    impact: item.impact ?? null,
    shortlink: item.shortlink || null,
    createdAt: item.created_at ?? null,
    startedAt: item.started_at ?? null,
    updatedAt: item.updated_at ?? null,
    resolvedAt: item.resolved_at ?? null,
    components: componentNames(item.components, `${where}: components`, skipped),
    updates: readItems(item.incident_updates, `${where}: incident_updates`, update, skipped, (u, updateWhere) => ({
      status: u.status ?? null,
      body: u.body ?? null,
      createdAt: u.created_at ?? null,
      displayAt: u.display_at ?? null,
      affected: componentNames(u.affected_components, `${updateWhere}: affected_components`, skipped),
    })),
  };
}

function componentNames(list: readonly unknown[], where: string, skipped: string[]): string[] {
  return readItems(list, where, named, skipped, (c) => c.name).filter((name) => !NO_COMPONENT.test(name.trim()));
}
