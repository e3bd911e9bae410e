import { z } from 'zod';
import type { ResolutionStage, Severity } from '../domain/model/incident.js';
import type { ServiceStatus } from '../domain/model/service.js';
import { feedDate, firstById, htmlToText, readItems, readJson } from './feed-text.js';
import type { FeedReader, VendorIncident, VendorMaintenance, VendorUpdate } from './vendor-snapshot.js';

/*
 * Slack's status API (https://docs.slack.dev/reference/slack-status-api),
 * given its base address `https://slack-status.com`.
 *
 * `current` holds `status` (`ok` when all is well, `active` otherwise) and
 * `active_incidents`: the items under way, each `{ id, date_created,
 * date_updated, title, type, status, url, services, notes[{ date_created,
 * body }] }`. An item leaves `current` once Slack closes it, so `current` alone
 * would end it at the time of our read, with its closing note never seen.
 * `history` lists the past items in the same shape, `status` then `resolved`
 * (maintenance: `completed` or `cancelled`), with the dated note that closed
 * them: reading it too gives the resolution Slack published, at Slack's time.
 *
 * `type` is `incident`, `outage`, `notice` or `maintenance`. An outage is
 * major, an incident minor; a notice is information (minor, and it does not
 * turn the indicator from ok); maintenance (also told by `scheduled`) is kept
 * as a maintenance, never as an incident. Slack gives a maintenance no planned
 * window, so it starts when it was posted and ends when it was closed.
 */

const note = z.object({ date_created: feedDate.nullish(), body: z.string().nullish() });

const item = z.object({
  // Numbers in Slack's answers; read as text, so that a missing id is said to be missing.
  id: z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string().min(1)),
  date_created: feedDate.nullish(),
  date_updated: feedDate.nullish(),
  title: z.string(),
  type: z.string().nullish(),
  status: z.string().nullish(),
  url: z.string().nullish(),
  services: z.array(z.string()).nullish(),
  notes: z.array(note).nullish(),
});

type Item = z.output<typeof item>;

const current = z.object({ status: z.string(), active_incidents: z.array(z.unknown()).nullish() });

export const slack = {
  kind: 'slack',
  documents: (url) => [`${trimSlash(url)}/api/v2.0.0/current`, `${trimSlash(url)}/api/v2.0.0/history`],
  parse(bodies, context) {
    const now = readJson(bodies[0] ?? '', 'current', current);
    const past = readJson(bodies[1] ?? '', 'history', z.array(z.unknown()));
    const skipped: string[] = [];
    const active = readItems(now.active_incidents ?? [], 'current: active_incidents', item, skipped);
    const closed = readItems(past, 'history', item, skipped);
    const items = latestCopies(active, closed);
    const incidents = firstById(items.filter((i) => !isMaintenance(i)).map((i) => toIncident(i, context.now)));
    const maintenances = firstById(items.filter(isMaintenance).map((i) => toMaintenance(i, context.now)));
    const listed = new Set(active.map((i) => i.id));
    return {
      indicator: indicatorOf(
        now.status,
        items.filter((i) => listed.has(i.id) && !isClosed(i)),
      ),
      components: [],
      incidents,
      maintenances,
      skipped,
    };
  },
} satisfies FeedReader<'slack'>;

const CLOSED = new Set(['resolved', 'completed', 'cancelled', 'canceled']);
const MAINTENANCE_STATUSES = new Set(['scheduled', 'completed', 'cancelled', 'canceled']);

function word(text: string | null | undefined): string {
  return (text ?? '').trim().toLowerCase();
}

function isClosed(i: Item): boolean {
  return CLOSED.has(word(i.status));
}

function isMaintenance(i: Item): boolean {
  return word(i.type) === 'maintenance' || MAINTENANCE_STATUSES.has(word(i.status));
}

function severityOf(i: Item): Severity {
  return word(i.type) === 'outage' ? 'major' : 'minor';
}

/**
 * Each item once, the copy updated last; `current` wins a tie, being the live
 * answer. An item still listed as active in `current` but already closed in a
 * later `history` copy is closed.
 */
function latestCopies(active: readonly Item[], closed: readonly Item[]): Item[] {
  const byId = new Map<string, Item>();
  for (const i of closed) if (!byId.has(i.id)) byId.set(i.id, i);
  for (const i of active) {
    const known = byId.get(i.id);
    if (known === undefined || timeOf(i.date_updated) >= timeOf(known.date_updated)) byId.set(i.id, i);
  }
  return [...byId.values()];
}

function timeOf(date: Date | null | undefined): number {
  return date?.getTime() ?? Number.NEGATIVE_INFINITY;
}

/** `ok` is ok; `active` is the worst open item (a notice alone does not count); any other word says nothing. */
function indicatorOf(status: string, open: readonly Item[]): ServiceStatus | null {
  switch (word(status)) {
    case 'ok':
      return open.length === 0 ? 'ok' : (worst(open) ?? 'ok');
    case 'active':
      return worst(open) ?? (open.length > 0 ? 'ok' : 'minor');
    default:
      return null;
  }
}

function worst(open: readonly Item[]): ServiceStatus | null {
  if (open.some((i) => !isMaintenance(i) && severityOf(i) === 'major')) return 'major';
  if (open.some((i) => !isMaintenance(i) && word(i.type) !== 'notice')) return 'minor';
  if (open.some((i) => isMaintenance(i) && word(i.status) !== 'scheduled')) return 'maintenance';
  return null;
}

function notesOf(i: Item, fallback: Date): { at: Date; text: string }[] {
  return (i.notes ?? []).map((n) => ({ at: n.date_created ?? fallback, text: htmlToText(n.body ?? '') })).sort((a, b) => a.at.getTime() - b.at.getTime());
}

function toIncident(i: Item, now: Date): VendorIncident {
  const notes = notesOf(i, i.date_updated ?? i.date_created ?? now);
  const resolved = isClosed(i);
  const createdAt = i.date_created ?? notes[0]?.at ?? i.date_updated ?? now;
  const lastNote = notes[notes.length - 1]?.at;
  const updatedAt = latestOf(i.date_updated, lastNote) ?? createdAt;
  // The note that closed an item is its resolution; every note before it is work under way.
  const updates: VendorUpdate[] = notes.map((n, index) => ({
    stage: (resolved && index === notes.length - 1 ? 'resolved' : 'investigating') satisfies ResolutionStage,
    description: n.text,
    createdAt: n.at,
  }));
  return {
    id: i.id,
    title: i.title,
    severity: severityOf(i),
    severityFromProvider: i.type ?? null,
    url: i.url ?? null,
    description: notes[notes.length - 1]?.text ?? '',
    components: [...new Set(i.services ?? [])],
    createdAt,
    updatedAt,
    resolved,
    resolvedAt: resolved ? updatedAt : null,
    updates,
  };
}

function toMaintenance(i: Item, now: Date): VendorMaintenance {
  const startsAt = i.date_created ?? i.date_updated ?? now;
  return {
    id: i.id,
    name: i.title,
    startsAt,
    endsAt: isClosed(i) ? latestOf(i.date_updated, startsAt) : null,
    status: i.status ?? 'scheduled',
    components: [...new Set(i.services ?? [])],
    url: i.url ?? null,
  };
}

function latestOf(...dates: (Date | null | undefined)[]): Date | null {
  const known = dates.filter((d): d is Date => d instanceof Date);
  return known.length === 0 ? null : known.reduce((a, b) => (b.getTime() > a.getTime() ? b : a));
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
