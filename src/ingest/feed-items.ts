import type { ResolutionStage, Severity } from '../domain/incidents/incident.js';
import { firstById } from './feed-text.js';
import type { VendorIncident, VendorUpdate } from './vendor-snapshot.js';

/** One RSS item or Atom entry, read. */
export interface FeedItem {
  /** guid / Atom id. */
  id: string | null;
  link: string | null;
  /** The title as written, status prefix included. */
  title: string;
  /** The item's text, as plain text. */
  text: string;
  /** When it was published. */
  date: Date | null;
  /** When it last changed, for feeds that say (Atom's `updated`). */
  updated: Date | null;
}

// The rules below (status prefixes, "resolved", severity, grouping) are written
// down, with the reasons, in rss.ts; they are the same for Atom.

const STATUS_PREFIXES = new Set([
  'resolved', 'completed', 'service is operating normally', 'informational', 'informational message', 'info',
  'service impact', 'service disruption', 'performance issues', 'investigating', 'identified', 'monitoring',
  'update', 'updated', 'maintenance', 'scheduled maintenance', 'degraded performance', 'partial outage',
  'major outage', 'outage', 'minor', 'major', 'critical',
]);
const RESOLVED_PREFIXES = new Set(['resolved', 'completed', 'service is operating normally']);

const LABEL_STAGES: Record<string, ResolutionStage | undefined> = {
  investigating: 'investigating', identified: 'identified', monitoring: 'monitoring',
  resolved: 'resolved', postmortem: 'resolved', completed: 'resolved',
};
// `Mar 16, 19:46 UTC Resolved - …`: one update of a Statuspage/incident.io history item, newest first;
// after the first, an update starts after its time stamp or after the sentence ending the one before.
const STAMP = String.raw`[a-z]{3} \d{1,2}, \d{1,2}:\d{2} [a-z]{2,5} `;
const LABEL = '(investigating|identified|monitoring|resolved|postmortem|completed|update|scheduled|in progress|verifying) [-–—] ';
const UPDATE_LABEL = new RegExp(`(?:^|[.!?] |\\b${STAMP})${LABEL}`, 'gi');
const LATEST_LABEL = new RegExp(`^(?:${STAMP})?${LABEL}`, 'i');
// AWS's guids are `…#{service}-{region}_{epoch of the item}`: the same event across its updates.
const EVENT_GUID = /^(.+)_(\d{9,11})$/;

interface ReadItem {
  item: FeedItem;
  id: string;
  title: string;
  prefix: string | null;
  resolved: boolean;
  stage: ResolutionStage;
  severity: Severity;
  eventKey: string;
}

/** The incidents a feed's items tell of: one per event, the event's items as its updates. */
export function incidentsFromItems(items: readonly FeedItem[], now: Date): VendorIncident[] {
  const events = new Map<string, ReadItem[]>();
  for (const item of items) {
    const read = readItem(item);
    if (read === null) continue;
    const event = events.get(read.eventKey);
    if (event) event.push(read);
    else events.set(read.eventKey, [read]);
  }
  const incidents: VendorIncident[] = [];
  for (const event of events.values()) {
    const ordered = event
      .map((read, index) => ({ read, index }))
      .sort((a, b) => time(a.read.item, now) - time(b.read.item, now) || b.index - a.index)
      .map(({ read }) => read);
    // A resolved item ends the event; a later item under the same key is the service's next event,
    // unless it repeats the guid the ended event is known by: then that event goes on (reopens).
    const segments: ReadItem[][] = [];
    let open: ReadItem[] | null = null;
    for (const read of ordered) {
      if (open === null) {
        open = segments.find((segment) => segment[0]!.id === read.id) ?? null;
        if (open === null) segments.push((open = []));
      }
      open.push(read);
      if (read.resolved) open = null;
    }
    for (const segment of segments) incidents.push(toIncident(segment, now));
  }
  return firstById(incidents.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()));
}

function readItem(item: FeedItem): ReadItem | null {
  const id = item.id ?? item.link ?? (item.title === '' ? null : item.title);
  if (id === null) return null;
  const { title, prefixes } = stripPrefixes(item.title);
  const label = latestLabel(item.text);
  const resolved = prefixes.some((p) => RESOLVED_PREFIXES.has(p.toLowerCase())) || LABEL_STAGES[label ?? ''] === 'resolved';
  const stage: ResolutionStage = resolved ? 'resolved' : latestStage(item.text) ?? 'investigating';
  return {
    item,
    id,
    title,
    prefix: prefixes[0] ?? null,
    resolved,
    stage,
    severity: itemSeverity(item.title, prefixes),
    eventKey: eventKey(id, item.date),
  };
}

function stripPrefixes(title: string): { title: string; prefixes: string[] } {
  const prefixes: string[] = [];
  let rest = title.trim();
  for (let i = 0; i < 3; i += 1) {
    const m = /^\[([^\]]{1,40})\]\s*/.exec(rest) ?? /^([a-z][a-z ]{1,40}?)\s*:\s+/i.exec(rest);
    if (!m || !STATUS_PREFIXES.has(m[1]!.trim().toLowerCase())) break;
    prefixes.push(m[1]!.trim());
    rest = rest.slice(m[0].length);
  }
  return { title: rest === '' ? title.trim() : rest, prefixes };
}

function labels(text: string): string[] {
  return [...text.matchAll(UPDATE_LABEL)].map((m) => m[1]!.toLowerCase());
}

function latestLabel(text: string): string | null {
  const m = LATEST_LABEL.exec(text);
  return m === null ? null : m[1]!.toLowerCase();
}

function latestStage(text: string): ResolutionStage | null {
  if (latestLabel(text) === null) return null;
  for (const label of labels(text)) {
    const stage = LABEL_STAGES[label];
    if (stage !== undefined) return stage;
  }
  return null;
}

function itemSeverity(title: string, prefixes: readonly string[]): Severity {
  if (prefixes.some((p) => RESOLVED_PREFIXES.has(p.toLowerCase()) || /^info/i.test(p))) return 'minor';
  return /service disruption|outage/i.test(title) ? 'major' : 'minor';
}

function eventKey(id: string, date: Date | null): string {
  const m = EVENT_GUID.exec(id);
  // Only when the suffix is the item's own publication time, which makes it a timestamp and not part of an id.
  if (m && date !== null && Math.abs(Number(m[2]) * 1000 - date.getTime()) <= 60_000) return m[1]!;
  return id;
}

function time(item: FeedItem, now: Date): number {
  return published(item, now).getTime();
}

function published(item: FeedItem, now: Date): Date {
  return item.date ?? item.updated ?? now;
}

function latest(item: FeedItem, now: Date): Date {
  return item.updated ?? item.date ?? now;
}

function toIncident(segment: readonly ReadItem[], now: Date): VendorIncident {
  const first = segment[0]!;
  const last = segment[segment.length - 1]!;
  const severity: Severity = segment.some((r) => r.severity === 'major') ? 'major' : 'minor';
  const open = segment.filter((r) => !r.resolved && r.severity === severity);
  const worded = [...(open.length > 0 ? open : [last])].reverse().find((r) => r.prefix !== null);
  const updates: VendorUpdate[] = segment.map((r) => ({ stage: r.stage, description: r.item.text, createdAt: latest(r.item, now) }));
  return {
    id: first.id,
    title: last.title,
    severity,
    severityFromProvider: worded?.prefix ?? null,
    url: last.item.link ?? [...segment].reverse().find((r) => r.item.link !== null)?.item.link ?? null,
    description: last.item.text,
    components: [],
    createdAt: published(first.item, now),
    updatedAt: latest(last.item, now),
    resolved: last.resolved,
    resolvedAt: last.resolved ? latest(last.item, now) : null,
    updates,
  };
}
