import { XMLParser } from 'fast-xml-parser';
import { collapse, decodeEntities, htmlToText } from './feed-text.js';
import { FeedFormatError } from './vendor-snapshot.js';

/** An element as fast-xml-parser gives it: text, or attributes (`@_name`) and children by name. */
export type XmlNode = unknown;

// Text-bearing elements are kept raw: their HTML (escaped, in CDATA, or Atom's
// inline XHTML) is read by `elementText`, which fast-xml-parser's object form
// would scramble (mixed content loses its order).
const RAW_ELEMENTS = ['*.title', '*.description', '*.content', '*.summary', '*.content:encoded'];
const REPEATED_ELEMENTS = new Set(['item', 'entry', 'link', 'category']);

/** Parses an XML feed body to its root element, whose name must be one of `roots`. */
export function readXml(body: string, document: string, roots: readonly string[]): XmlNode {
  const text = body.replace(/^\uFEFF/, '').trim();
  if (text === '') throw new FeedFormatError(`${document}: empty body`);
  if (text.startsWith('{') || text.startsWith('[')) throw new FeedFormatError(`${document}: JSON instead of XML`);
  if (!text.startsWith('<')) throw new FeedFormatError(`${document}: not XML`);
  let parsed: unknown;
  try {
    parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@_',
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: true,
      ignoreDeclaration: true,
      ignorePiTags: true,
      stopNodes: RAW_ELEMENTS,
      isArray: (name) => REPEATED_ELEMENTS.has(name),
    }).parse(text);
  } catch (error) {
    throw new FeedFormatError(`${document}: malformed XML (${error instanceof Error ? error.message : String(error)})`);
  }
  const names = isRecord(parsed) ? Object.keys(parsed).filter((name) => !name.startsWith('?') && !name.startsWith('!')) : [];
  const root = names.find((name) => roots.includes(name));
  if (root === undefined || !isRecord(parsed)) {
    const found = names[0];
    if (found === undefined || /^html$/i.test(found) || /^<!doctype html/i.test(text)) {
      throw new FeedFormatError(`${document}: ${found === undefined ? 'no XML element' : 'an HTML page'} instead of a feed`);
    }
    throw new FeedFormatError(`${document}: root element <${found}>, expected <${roots.join('> or <')}>`);
  }
  return parsed[root];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The child elements named `name`, whether the parser gave one or several. */
export function children(node: XmlNode, name: string): XmlNode[] {
  if (!isRecord(node) || !Object.hasOwn(node, name)) return [];
  const value = node[name];
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

export function child(node: XmlNode, name: string): XmlNode {
  return children(node, name)[0];
}

export function attribute(node: XmlNode, name: string): string | null {
  if (!isRecord(node)) return null;
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : null;
}

/** An element's own text, for elements without markup (guid, link, dates); null when it has none. */
export function plainText(node: XmlNode): string | null {
  const raw = typeof node === 'string' ? node : isRecord(node) ? node['#text'] : undefined;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  if (typeof raw !== 'string') return null;
  const text = collapse(raw);
  return text === '' ? null : text;
}

const XML_ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * A raw text-bearing element (see RAW_ELEMENTS) as plain text. Its content is
 * HTML in one of three spellings: escaped (`&lt;p&gt;`), in CDATA, or, for an
 * Atom `type="xhtml"`, as markup; in each case tags are dropped.
 */
export function elementText(node: XmlNode): string {
  const raw = typeof node === 'string' ? node : isRecord(node) && typeof node['#text'] === 'string' ? node['#text'] : '';
  if (attribute(node, 'type') === 'xhtml') return htmlToText(raw);
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    const start = raw.indexOf('<![CDATA[', at);
    const end = start < 0 ? -1 : raw.indexOf(']]>', start + 9);
    if (end < 0) break;
    parts.push(decodeEntities(raw.slice(at, start), XML_ENTITIES), raw.slice(start + 9, end));
    at = end + 3;
  }
  parts.push(decodeEntities(raw.slice(at), XML_ENTITIES));
  return htmlToText(parts.join(''));
}
