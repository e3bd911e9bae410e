import { parseFeedDate } from './feed-text.js';
import { incidentsFromItems, writtenZone } from './feed-items.js';
import type { FeedItem } from './feed-items.js';
import { attribute, child, children, elementText, plainText, readXml } from './feed-xml.js';
import type { XmlNode } from './feed-xml.js';
import type { FeedReader } from './vendor-snapshot.js';

/*
 * How an RSS (or Atom, same rules) status feed reads as incidents. An item says
 * nothing structured, so these rules were chosen against real feeds: AWS's
 * Health Dashboard (test/fixtures/status-feeds/aws-status.rss) and the
 * Statuspage/incident.io history feeds.
 *
 * Title. A leading status prefix is not part of the title: `[RESOLVED]`,
 * `Resolved:`, `[Informational]`, and AWS's `Service impact:`,
 * `Service disruption:`, `Informational message:`, `Performance issues:`,
 * `Service is operating normally:`; up to three stacked (AWS writes
 * `Service is operating normally: [RESOLVED] Increased Packet loss`). Only
 * known status words count, so `GitHub Actions: delayed runs` keeps its title.
 *
 * Resolved. An item is resolved when
 *   1. its title carries a resolved prefix: `[RESOLVED]`/`Resolved:` (any case),
 *      `Completed` (a finished maintenance), or AWS's
 *      `Service is operating normally:`; or
 *   2. its text opens with the latest update's label, with or without a time
 *      stamp (`Mar 16, 19:46 UTC Resolved - …`, newest first, as Statuspage and
 *      incident.io history items write it; `RESOLVED - …` as xAI did), and that
 *      label is Resolved, Postmortem or Completed; or, without such a label,
 *   3. its text has the field `Status: RESOLVED` (xAI), or one of its
 *      categories is exactly `Resolved`, `Postmortem` or `Completed`.
 * Words in the text alone do not resolve: GitHub's updates say "API Requests
 * is operating normally." while the incident is still under investigation, and
 * AWS's say "not yet fully recovered" mid-event. On the AWS fixture this makes
 * exactly one item resolved, the newest Direct Connect one
 * (`Service is operating normally: [RESOLVED] Increased Packet loss`); the 49
 * `Service impact`/`Service disruption` updates are not.
 *
 * History items. A text that opens with a time stamp holds the item's whole
 * timeline, newest first: each stamped label is one update with its own time,
 * listed oldest first, an `Update` keeping the stage before it. The incident
 * began at the earliest, was resolved at the Resolved update (a Postmortem
 * after it does not move it) and last changed at the newest; its text is the
 * newest update's. A stamp has no year: it takes the year that puts it
 * nearest the item's date (a December stamp on a January item is last year's).
 * Its zone is UTC, else the offset the item's date is written in (Statuspage
 * writes `PST` all year), else the zone's name. An item whose stamps cannot be
 * timed (no date on the item, an unknown zone) is read as one update.
 *
 * Stage of an item's update: resolved when resolved; else the latest stage
 * label of a history item (Identified, Monitoring…), else the stage its status
 * field or a category names; else investigating.
 *
 * Severity. `[RESOLVED]`/`Resolved:`/informational prefixes → minor; else
 * `Service disruption` or `outage` in the title → major; else minor. The
 * provider's word is the status prefix (`Service impact`), null without one.
 *
 * One event, several items. AWS posts each update of an event as its own item,
 * with the guid `…#{service}-{region}_{epoch}` where epoch is the item's own
 * pubDate: the fixture's 50 items are 3 events (Direct Connect in
 * eu-central-1, multiple services in me-central-1 and in me-south-1). Items
 * whose guid ends in `_{epoch of their pubDate}` are grouped by the rest of the
 * guid; so are items repeating a guid. Other feeds keep one incident per item:
 * a suffix that is not the item's own time is part of an id, and titles are no
 * key (AWS's are generic, like `Increased Error Rates`, and change within an
 * event: me-south-1's `Increased connectivity issues …` became `Increased
 * Connectivity Issues …`). Within a group, items run oldest first and a resolved item
 * closes the event: a later item under the same key is the next event. An
 * event's id is its first item's guid; its title, link and text are its latest
 * item's; its severity the worst of its items; each item is one update (a
 * history item, its stages).
 *
 * An item repeating the one before it in the event as it was (xAI posts an
 * incident once per affected component) is not a new update, and a stage a
 * history item already listed is listed once.
 *
 * Key. An item is known by its guid (Atom: id), else its link, else its
 * title; one with none of them is left out and named in `skipped`, and the
 * rest is read. An item without a readable date has no time of its own: its
 * incident is marked `undated` and takes the time of the read, so that only
 * its content tells whether it changed.
 */
export const rss: FeedReader = {
  kind: 'rss',
  documents: (url) => [url],
  parse(bodies, context) {
    const node = readXml(bodies[0] ?? '', 'RSS feed', ['rss']);
    const items = children(child(node, 'channel'), 'item').map(readItem);
    const { incidents, skipped } = incidentsFromItems(items, context.now, 'item');
    return { indicator: null, components: [], incidents, maintenances: [], skipped };
  },
};

function readItem(item: XmlNode): FeedItem {
  const guid = child(item, 'guid');
  const date = plainText(child(item, 'pubDate')) ?? plainText(child(item, 'dc:date'));
  const text = elementText(child(item, 'description'));
  return {
    id: plainText(guid),
    link: plainText(child(item, 'link')) ?? (attribute(guid, 'isPermaLink') !== 'false' ? plainText(guid) : null),
    title: elementText(child(item, 'title')),
    text: text === '' ? elementText(child(item, 'content:encoded')) : text,
    categories: children(item, 'category').flatMap((category) => plainText(category) ?? []),
    date: date === null ? null : parseFeedDate(date),
    updated: null,
    zone: date === null ? null : writtenZone(date),
  };
}
