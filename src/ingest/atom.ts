import { parseFeedDate } from './feed-text.js';
import { incidentsFromItems, writtenZone } from './feed-items.js';
import type { FeedItem } from './feed-items.js';
import { attribute, child, children, elementText, plainText, readXml } from './feed-xml.js';
import type { XmlNode } from './feed-xml.js';
import type { FeedReader } from './vendor-snapshot.js';

/** Atom 1.0: the same rules as RSS (written down in rss.ts), read from `entry` elements. */
export const atom = {
  kind: 'atom',
  documents: (url) => [url],
  parse(bodies, context) {
    const node = readXml(bodies[0] ?? '', 'Atom feed', ['feed']);
    const entries = children(node, 'entry').map(readEntry);
    const { incidents, skipped } = incidentsFromItems(entries, context.now, 'entry');
    return { indicator: null, components: [], incidents, maintenances: [], skipped };
  },
} satisfies FeedReader<'atom'>;

function readEntry(entry: XmlNode): FeedItem {
  const published = plainText(child(entry, 'published'));
  const updated = plainText(child(entry, 'updated'));
  const content = elementText(child(entry, 'content'));
  return {
    id: plainText(child(entry, 'id')),
    link: entryLink(children(entry, 'link')),
    title: elementText(child(entry, 'title')),
    text: content === '' ? elementText(child(entry, 'summary')) : content,
    categories: children(entry, 'category').flatMap((category) => attribute(category, 'term') ?? plainText(category) ?? []),
    date: published === null ? null : parseFeedDate(published),
    updated: updated === null ? null : parseFeedDate(updated),
    zone: writtenZone(published ?? updated ?? ''),
  };
}

/** The entry's page: its `alternate` link (the default rel), else its first link. */
function entryLink(links: readonly XmlNode[]): string | null {
  const alternate = links.find((link) => (attribute(link, 'rel') ?? 'alternate') === 'alternate');
  const chosen = alternate ?? links[0];
  return chosen === undefined ? null : (attribute(chosen, 'href') ?? plainText(chosen));
}
