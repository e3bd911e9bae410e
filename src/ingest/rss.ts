import { parseFeedDate } from './feed-text.js';
import { incidentsFromItems, writtenZone } from './feed-items.js';
import type { FeedItem } from './feed-items.js';
import { attribute, child, children, elementText, plainText, readXml } from './feed-xml.js';
import type { XmlNode } from './feed-xml.js';
import type { FeedReader } from './vendor-snapshot.js';

/*
 * How an RSS (or Atom, same rules) status feed reads as incidents: the rules
 * are docs/vendors.md's "How RSS and Atom items read", made in feed-items.ts; the
 * tests hold them against vendors' real feeds. An item says nothing
 * structured, so only structure resolves an incident (a title prefix, a
 * history item's stage label, a status field or category), never words in its
 * text: vendors write "operating normally" or "not yet fully recovered" about
 * parts of an incident still open. Titles are no key, as a vendor may reword
 * one within an event; AWS's events are grouped by their guid without the
 * time suffix each update adds.
 */
export const rss = {
  kind: 'rss',
  documents: (url) => [url],
  parse(bodies, context) {
    const node = readXml(bodies[0] ?? '', 'RSS feed', ['rss']);
    const items = children(child(node, 'channel'), 'item').map(readItem);
    const { incidents, skipped } = incidentsFromItems(items, context.now, 'item');
    return { indicator: null, components: [], incidents, maintenances: [], skipped };
  },
} satisfies FeedReader<'rss'>;

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
