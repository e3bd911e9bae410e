import type { ResolutionStage, Severity } from '../domain/model/incident.js';
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
  /** Its categories (RSS `<category>` text, Atom `term`). */
  categories: string[];
  /** When it was published. */
  date: Date | null;
  /** When it last changed, for feeds that say (Atom's `updated`). */
  updated: Date | null;
  /** The zone offset, in minutes, its date is written in (`-0700` → -420); null when it writes none. */
  zone: number | null;
}

// The rules below (status prefixes, resolution, timelines, severity, grouping) are
// written down, with the reasons, in rss.ts; they are the same for Atom.

const STATUS_PREFIXES = new Set([
  'resolved',
  'completed',
  'service is operating normally',
  'informational',
  'informational message',
  'info',
  'service impact',
  'service disruption',
  'performance issues',
  'investigating',
  'identified',
  'monitoring',
  'update',
  'updated',
  'maintenance',
  'scheduled maintenance',
  'degraded performance',
  'partial outage',
  'major outage',
  'outage',
  'minor',
  'major',
  'critical',
]);
const RESOLVED_PREFIXES = new Set(['resolved', 'completed', 'service is operating normally']);

const LABEL_STAGES: Record<string, ResolutionStage | undefined> = {
  investigating: 'investigating',
  identified: 'identified',
  monitoring: 'monitoring',
  resolved: 'resolved',
  postmortem: 'resolved',
  completed: 'resolved',
};
// `Mar 16, 19:46 UTC Resolved - …`: one update of a Statuspage/incident.io history item, newest first;
// after the first, an update starts after its time stamp or after the sentence ending the one before.
const STAMP = String.raw`[a-z]{3} \d{1,2}, \d{1,2}:\d{2} [a-z]{2,5} `;
const LABEL = '(investigating|identified|monitoring|resolved|postmortem|completed|update|scheduled|in progress|verifying) [-–—] ';
const UPDATE_LABEL = new RegExp(`(?:^|[.!?] |\\b${STAMP})${LABEL}`, 'gi');
const LATEST_LABEL = new RegExp(`^(?:${STAMP})?${LABEL}`, 'i');
const STAMPED_UPDATE = new RegExp(String.raw`(?:^|\s)([a-z]{3}) (\d{1,2}), (\d{1,2}):(\d{2}) ([a-z]{2,5}) ${LABEL}`, 'gi');
// A status field, as xAI writes it (`Status: RESOLVED`): a field, not prose.
const STATUS_FIELD = /\bstatus\s*:\s*(investigating|identified|monitoring|resolved|postmortem|completed)\b/i;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const UTC_ZONES = new Set(['utc', 'gmt', 'ut', 'z']);
// AWS's guids are `…#{service}-{region}_{epoch of the item}`: the same event across its updates.
const EVENT_GUID = /^(.+)_(\d{9,11})$/;

interface ReadItem {
  item: FeedItem;
  id: string;
  title: string;
  prefix: string | null;
  resolved: boolean;
  severity: Severity;
  eventKey: string;
  /** Its updates, oldest first: the dated stages of a history item, else the item itself as one. */
  updates: VendorUpdate[];
  /** When its updates carry their own times (a history item's time stamps). */
  timeline: boolean;
}

/** What a feed's items tell: one incident per event, the event's items as its updates; and the items left out. */
export function incidentsFromItems(items: readonly FeedItem[], now: Date, noun: string): { incidents: VendorIncident[]; skipped: string[] } {
  const events = new Map<string, ReadItem[]>();
  const skipped: string[] = [];
  items.forEach((item, index) => {
    const read = readItem(item, now);
    if (read === null) {
      skipped.push(`${noun} ${index + 1}: no guid, link or title`);
      return;
    }
    const event = events.get(read.eventKey);
    if (event) event.push(read);
    else events.set(read.eventKey, [read]);
  });
  const incidents: VendorIncident[] = [];
  for (const event of events.values()) {
    const ordered = event
      .map((read, index) => ({ read, index }))
      .sort((a, b) => time(a.read.item, now) - time(b.read.item, now) || b.index - a.index)
      .map(({ read }) => read)
      // An item repeated as it was (xAI posts an incident once per component) is one update, not several.
      .filter((read, index, all) => index === 0 || !sameContent(read, all[index - 1]!));
    // A resolved item ends the event; a later item under the same key is the service's next event,
    // unless it repeats the guid the ended event is known by: then that event goes on (reopens).
    const segments: ReadItem[][] = [];
    let open: ReadItem[] | null = null;
    for (const read of ordered) {
      if (open === null) {
        open = segments.find((segment) => segment[0]!.id === read.id) ?? null;
        if (open === null) {
          open = [];
          segments.push(open);
        }
      }
      open.push(read);
      if (read.resolved) open = null;
    }
    for (const segment of segments) incidents.push(toIncident(segment, now));
  }
  return { incidents: firstById(incidents.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())), skipped };
}

/** The zone offset a feed date is written in (`Tue, 22 Oct 2013 04:10:52 -0700`, `…+02:00`), in minutes; null for `Z`, `GMT` or none. */
export function writtenZone(date: string): number | null {
  const m = /([+-])(\d{2}):?(\d{2})\s*$/.exec(date.trim());
  if (m === null) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function sameContent(a: ReadItem, b: ReadItem): boolean {
  return a.id === b.id && a.item.title === b.item.title && a.item.text === b.item.text && a.resolved === b.resolved;
}

function readItem(item: FeedItem, now: Date): ReadItem | null {
  const id = item.id ?? item.link ?? (item.title === '' ? null : item.title);
  if (id === null) return null;
  const { title, prefixes } = stripPrefixes(item.title);
  const titleResolved = prefixes.some((p) => RESOLVED_PREFIXES.has(p.toLowerCase()));
  const label = latestLabel(item.text);
  // The newest update's label, where the text has one, says where the incident is (it may have reopened);
  // else a status field of the text, else a category naming a stage.
  const marked = label !== null ? (LABEL_STAGES[label] ?? latestStage(item.text)) : fieldStage(item);
  const resolved = titleResolved || marked === 'resolved';
  const timeline = label === null ? null : stampedUpdates(item);
  const updates = timeline ?? [{ stage: resolved ? 'resolved' : (marked ?? 'investigating'), description: item.text, createdAt: latest(item, now) }];
  return {
    item,
    id,
    title,
    prefix: prefixes[0] ?? null,
    resolved: timeline === null ? resolved : titleResolved || timeline[timeline.length - 1]!.stage === 'resolved',
    severity: itemSeverity(item.title, prefixes),
    eventKey: eventKey(id, item.date),
    updates,
    timeline: timeline !== null,
  };
}

function fieldStage(item: FeedItem): ResolutionStage | undefined {
  const field = STATUS_FIELD.exec(item.text);
  if (field) return LABEL_STAGES[field[1]!.toLowerCase()];
  const stages = item.categories.map((c) => LABEL_STAGES[c.trim().toLowerCase()]).filter((s) => s !== undefined);
  return stages.includes('resolved') ? 'resolved' : stages[0];
}

/**
 * The dated updates of a history item whose text opens with a time stamp, oldest
 * first; null when its stamps cannot be timed (no date on the item to take the
 * year from, an unknown zone, a day that does not exist).
 */
function stampedUpdates(item: FeedItem): VendorUpdate[] | null {
  const reference = item.date ?? item.updated;
  const matches = [...item.text.matchAll(STAMPED_UPDATE)];
  if (reference === null || matches.length === 0 || matches[0]!.index !== 0) return null;
  const newestFirst: { at: Date; label: string; description: string }[] = [];
  for (const [i, m] of matches.entries()) {
    const zone = m[5]!.toLowerCase();
    // Statuspage names the page's zone without its summer time (Parse wrote `PST` in October): the item's
    // own date, written in the page's zone, gives the offset in force; a known name does without it.
    const offset = UTC_ZONES.has(zone) ? 0 : item.zone !== null && item.zone !== 0 ? item.zone : ZONE_OFFSETS[zone];
    const month = MONTHS.indexOf(m[1]!.toLowerCase());
    if (offset === undefined || month < 0) return null;
    const at = nearestYear(reference, month, +m[2]!, +m[3]!, +m[4]!, offset);
    if (at === null) return null;
    const end = i + 1 < matches.length ? matches[i + 1]!.index : item.text.length;
    newestFirst.push({ at, label: m[6]!.toLowerCase(), description: item.text.slice(m.index + m[0].length, end).trim() });
  }
  // An `Update` (or a maintenance's `In progress`) keeps the stage the incident was at.
  let stage: ResolutionStage = 'investigating';
  return newestFirst.reverse().map(({ at, label, description }) => {
    stage = LABEL_STAGES[label] ?? stage;
    return { stage, description, createdAt: at };
  });
}

// A stamp's zone when the item's own date writes no offset to read the page's zone from.
const ZONE_OFFSETS: Record<string, number | undefined> = {
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  cet: 60,
  cest: 120,
  eet: 120,
  eest: 180,
  jst: 540,
  aest: 600,
  aedt: 660,
};

/** A stamp without a year, in the year that puts it nearest the item's date (a December stamp on a January item is last year's). */
function nearestYear(reference: Date, month: number, day: number, hour: number, minute: number, offset: number): Date | null {
  if (hour > 23 || minute > 59) return null;
  let best: Date | null = null;
  for (const year of [reference.getUTCFullYear() - 1, reference.getUTCFullYear(), reference.getUTCFullYear() + 1]) {
    const local = new Date(Date.UTC(year, month, day, hour, minute));
    if (local.getUTCDate() !== day) continue;
    const at = new Date(local.getTime() - offset * 60_000);
    if (best === null || Math.abs(at.getTime() - reference.getTime()) < Math.abs(best.getTime() - reference.getTime())) best = at;
  }
  return best;
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

function latestLabel(text: string): string | null {
  const m = LATEST_LABEL.exec(text);
  return m === null ? null : m[1]!.toLowerCase();
}

/** The stage of the newest labelled update that names one (an `Update` names none). */
function latestStage(text: string): ResolutionStage | undefined {
  for (const m of text.matchAll(UPDATE_LABEL)) {
    const stage = LABEL_STAGES[m[1]!.toLowerCase()];
    if (stage !== undefined) return stage;
  }
  return undefined;
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
  const updates = distinctUpdates(segment.flatMap((r) => r.updates));
  const newest = updates[updates.length - 1]!;
  const undated = segment.every((r) => r.item.date === null && r.item.updated === null);
  return {
    id: first.id,
    title: last.title,
    severity,
    severityFromProvider: worded?.prefix ?? null,
    url: last.item.link ?? [...segment].reverse().find((r) => r.item.link !== null)?.item.link ?? null,
    description: last.timeline ? newest.description : last.item.text,
    components: [],
    createdAt: first.timeline ? first.updates[0]!.createdAt : published(first.item, now),
    updatedAt: last.timeline ? newest.createdAt : latest(last.item, now),
    resolved: last.resolved,
    resolvedAt: last.resolved ? resolvedAt(updates, last, now) : null,
    updates,
    ...(undated ? { undated } : {}),
  };
}

/** The updates of an event's items, each once: a history item read again repeats the stages already read. */
function distinctUpdates(updates: readonly VendorUpdate[]): VendorUpdate[] {
  const seen = new Set<string>();
  return updates.filter((u) => {
    const key = `${u.createdAt.getTime()} ${u.stage} ${u.description}`;
    return !seen.has(key) && seen.add(key);
  });
}

/** When it was resolved: the first of the resolved updates that close the timeline (a postmortem after it does not move it). */
function resolvedAt(updates: readonly VendorUpdate[], last: ReadItem, now: Date): Date {
  if (!last.timeline) return latest(last.item, now);
  let at = updates.length - 1;
  while (at > 0 && updates[at - 1]!.stage === 'resolved') at -= 1;
  return updates[at]!.stage === 'resolved' ? updates[at]!.createdAt : updates[updates.length - 1]!.createdAt;
}
