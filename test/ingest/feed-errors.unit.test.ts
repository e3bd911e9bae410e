import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FEED_READERS } from '../../src/ingest/feed-readers.js';
import { FEED_KINDS, FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { FeedKind, VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, fixtureJson, NOW } from './fixtures.js';

const context = { url: 'https://status.example.com', now: NOW };
const SUMMARY = fixture('statuspage-github-summary.json');
const INCIDENTS = fixture('statuspage-github-incidents.json');
const HTML_PAGE = '<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body><h1>Down for maintenance</h1></body></html>';

function parse(kind: FeedKind, bodies: readonly string[]): VendorSnapshot {
  return FEED_READERS[kind].parse(bodies, context);
}

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a FeedFormatError, got a snapshot');
}

function expectFormatError(run: () => unknown, message: RegExp): void {
  const error = failure(run);
  expect(error).toBeInstanceOf(FeedFormatError);
  expect((error as Error).message).toMatch(message);
}

describe('feed errors', () => {
  it('has a reader for every feed kind', () => {
    expect(Object.keys(FEED_READERS).sort()).toEqual([...FEED_KINDS].sort());
    for (const kind of FEED_KINDS) expect(FEED_READERS[kind].kind).toBe(kind);
  });

  it.each([
    ['statuspage', [HTML_PAGE, INCIDENTS], /^summary\.json: an HTML page instead of JSON$/],
    ['statuspage', [SUMMARY, HTML_PAGE], /^incidents\.json: an HTML page instead of JSON$/],
    ['gcp', [HTML_PAGE], /^incidents\.json: an HTML page instead of JSON$/],
    ['instatus', [HTML_PAGE], /^summary\.json: an HTML page instead of JSON$/],
    ['statuspage', ['<?xml version="1.0"?><rss/>', INCIDENTS], /^summary\.json: an XML document instead of JSON$/],
    ['rss', [HTML_PAGE], /^RSS feed: an HTML page instead of a feed$/],
    ['atom', [HTML_PAGE], /^Atom feed: an HTML page instead of a feed$/],
  ] as const)('%s refuses an HTML page (%#)', (kind, bodies, message) => {
    expectFormatError(() => parse(kind, bodies), message);
  });

  it.each([
    ['statuspage', ['{"page": {', INCIDENTS], /^summary\.json: malformed JSON \(/],
    ['gcp', ['[{"id": "x",]'], /^incidents\.json: malformed JSON \(/],
    ['instatus', ['{"page": {"status": "UP"}} trailing'], /^summary\.json: malformed JSON \(/],
    ['rss', ['<rss><channel><item><title><![CDATA[x</title></item></channel></rss>'], /^RSS feed: malformed XML \(/],
    ['atom', ['<?xml version="1.0"'], /^Atom feed: malformed XML \(/],
    ['rss', ['not a feed at all'], /^RSS feed: not XML$/],
    ['rss', [SUMMARY], /^RSS feed: JSON instead of XML$/],
  ] as const)('%s refuses a malformed body (%#)', (kind, bodies, message) => {
    expectFormatError(() => parse(kind, bodies), message);
  });

  it.each([
    ['statuspage', ['[]', INCIDENTS], /^summary\.json: unexpected content: the document should be an object$/],
    ['statuspage', ['{"page": {}}', INCIDENTS], /^summary\.json: unexpected content: status is missing$/],
    [
      'statuspage',
      ['{"status": {"indicator": "purple"}}', INCIDENTS],
      /^summary\.json: unexpected content: status\.indicator should be one of "none", "minor", "major", "critical", "maintenance", got "purple"$/,
    ],
    ['statuspage', [SUMMARY, '{"incidents": {}}'], /^incidents\.json: unexpected content: incidents should be an array$/],
    ['gcp', ['{"incidents": []}'], /^incidents\.json: unexpected content: the document should be an array$/],
    ['instatus', [INCIDENTS], /^summary\.json: unexpected content: page\.status is missing$/],
    ['instatus', ['{}'], /^summary\.json: unexpected content: page is missing$/],
    ['rss', ['<feed xmlns="http://www.w3.org/2005/Atom"/>'], /^RSS feed: root element <feed>, expected <rss>$/],
  ] as const)('%s names what is wrong in JSON or XML of the wrong shape (%#)', (kind, bodies, message) => {
    expectFormatError(() => parse(kind, bodies), message);
  });

  // One unreadable item used to reject its whole document, and with it every resolution the document published.
  it.each([
    ['statuspage', [SUMMARY, '{"incidents": [{"name": "x"}]}'], ['incidents.json: incidents[0] (name "x"): id is missing']],
    [
      'statuspage',
      [SUMMARY, '{"incidents": [{"id": "a", "name": "x", "created_at": "soon"}]}'],
      ['incidents.json: incidents[0] (id "a"): created_at should be a date, got "soon"'],
    ],
    [
      'gcp',
      ['[{"id": "a"}, {"external_desc": 1}]'],
      ['incidents.json: [0] (id "a"): external_desc is missing', 'incidents.json: [1]: id is missing; external_desc should be a string'],
    ],
    [
      'instatus',
      ['{"page": {"status": "UP"}, "activeIncidents": [{"started": "soon"}]}'],
      ['summary.json: activeIncidents[0]: name is missing; started should be a date, got "soon"'],
    ],
  ] as const)('%s skips an unreadable item and names it instead of refusing the document (%#)', (kind, bodies, skipped) => {
    const snapshot = parse(kind, bodies);
    expect(snapshot.incidents).toEqual([]);
    expect(snapshot.skipped).toEqual(skipped);
  });

  it.each(FEED_KINDS)('%s refuses an empty body', (kind) => {
    expectFormatError(() => parse(kind, ['', '']), /: empty body$/);
    expectFormatError(() => parse(kind, [' \n ']), /: empty body$/);
    expectFormatError(() => parse(kind, []), /: empty body$/);
  });

  it('parses a huge but valid Statuspage payload', () => {
    const critical = fixtureJson('statuspage-github-incident-critical.json');
    const incidents = Array.from({ length: 1500 }, (_, n) => ({ ...critical, id: `incident-${n}` }));
    const body = JSON.stringify({ page: { url: 'https://www.githubstatus.com' }, incidents });
    expect(body.length).toBeGreaterThan(20_000_000);
    const snapshot = parse('statuspage', [SUMMARY, body]);
    expect(snapshot.incidents).toHaveLength(1500);
    expect(snapshot.incidents[1499]!.updates).toHaveLength(18);
  });

  it('parses a huge but valid RSS feed', () => {
    const rss = fixture('aws-status.rss');
    const items = rss.slice(rss.indexOf('<item>'), rss.lastIndexOf('</item>') + '</item>'.length);
    const copies = Array.from({ length: 100 }, (_, n) => items.replaceAll('https://status.aws.amazon.com/#', `https://status.aws.amazon.com/#copy${n}-`));
    const body = `<rss version="2.0"><channel>${copies.join('\n')}</channel></rss>`;
    const snapshot = parse('rss', [body]);
    expect(snapshot.incidents).toHaveLength(300);
  });
});

// Readers of several documents, or of documents with a name, say which one an item came from.
const NAMES_ITS_DOCUMENT = new Set<FeedKind>(['statuspage', 'gcp', 'instatus']);

/** Whatever the input: a snapshot whose dates are all real and whose ids are unique (the domain upserts by id), or a FeedFormatError. */
function readsOrRefuses(kind: FeedKind, bodies: readonly string[]): boolean {
  let snapshot: VendorSnapshot;
  try {
    snapshot = parse(kind, bodies);
  } catch (error) {
    if (error instanceof FeedFormatError) return true;
    throw error;
  }
  const dates = [
    ...snapshot.incidents.flatMap((i) => [i.createdAt, i.updatedAt, i.resolvedAt, ...i.updates.map((u) => u.createdAt)]),
    ...snapshot.maintenances.flatMap((m) => [m.startsAt, m.endsAt]),
  ];
  const unique = (ids: readonly string[]) => new Set(ids).size === ids.length;
  return (
    (!NAMES_ITS_DOCUMENT.has(kind) || snapshot.skipped.every((line) => /^(summary|incidents)\.json: \S/.test(line))) &&
    dates.every((d) => d === null || !Number.isNaN(d.getTime())) &&
    unique(snapshot.incidents.map((i) => i.id)) &&
    unique(snapshot.maintenances.map((m) => m.id))
  );
}

// Mostly valid values, so that most samples get past validation into the mapping.
const someDate = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });
const dateText = fc.oneof(
  { arbitrary: someDate.map((d) => d.toISOString()), weight: 6 },
  { arbitrary: someDate.map((d) => d.toUTCString()), weight: 2 },
  { arbitrary: someDate.map((d) => d.toString()), weight: 2 },
  { arbitrary: fc.string(), weight: 1 },
);
// Ids from a small set too, so that feeds listing an id twice come up.
const someId = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.string());
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const word = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      ...['none', 'minor', 'major', 'critical', 'maintenance', 'resolved', 'postmortem', 'investigating', 'in_progress', 'verifying'],
      ...['UP', 'HASISSUES', 'UNDERMAINTENANCE', 'INPROGRESS', 'MAJOROUTAGE', 'AVAILABLE', 'SERVICE_OUTAGE', 'high'],
    ),
    weight: 6,
  },
  { arbitrary: fc.string(), weight: 1 },
);
const statuspageIncident = fc.record(
  {
    id: someId,
    name: fc.string(),
    status: word,
    impact: word,
    shortlink: fc.option(fc.string()),
    created_at: dateText,
    updated_at: fc.option(dateText),
    resolved_at: fc.option(dateText),
    scheduled_for: dateText,
    components: fc.array(fc.record({ name: fc.string() })),
    incident_updates: fc.array(
      fc.record(
        {
          status: word,
          body: fc.string(),
          created_at: dateText,
          display_at: maybe(dateText),
          affected_components: fc.option(fc.array(fc.record({ name: fc.string() }))),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['id', 'name'] },
);
const gcpIncident = fc.record(
  {
    id: someId,
    external_desc: fc.string(),
    begin: dateText,
    end: fc.option(dateText),
    modified: dateText,
    severity: word,
    uri: fc.option(fc.string()),
    most_recent_update: fc.record({ when: dateText, text: fc.string(), status: word }, { requiredKeys: [] }),
    updates: fc.array(fc.record({ when: dateText, text: fc.string(), status: word }, { requiredKeys: [] })),
    affected_products: fc.array(fc.record({ title: fc.string() })),
  },
  { requiredKeys: ['id', 'external_desc'] },
);
const instatusItem = fc.record(
  {
    id: someId,
    name: fc.constantFrom('a', 'b'),
    status: word,
    impact: word,
    url: fc.constantFrom('https://x.instatus.com/incident/a', 'https://x.instatus.com/maintenance/a', 'x'),
    started: dateText,
    start: dateText,
    updatedAt: dateText,
    duration: fc.oneof(fc.string(), fc.double()),
  },
  { requiredKeys: ['name'] },
);
const xmlish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<rss>',
        '</rss>',
        '<channel>',
        '</channel>',
        '<feed>',
        '</feed>',
        '<item>',
        '</item>',
        '<entry>',
        '</entry>',
        '<title>',
        '</title>',
        '<guid>',
        '</guid>',
        '<id>',
        '</id>',
        '<link href="x"/>',
        '<link>',
        '</link>',
        '<pubDate>',
        '</pubDate>',
        '<published>',
        '</published>',
        '<updated>',
        '</updated>',
        '<description>',
        '</description>',
        '<content type="xhtml">',
        '<content type="html">',
        '</content>',
        '<![CDATA[',
        ']]>',
        '&amp;',
        '&lt;',
        '&#x1F600;',
        '&#99999999;',
        '[RESOLVED] ',
        'Service disruption: ',
        'Resolved - ',
        'Mar 16, 19:46 UTC ',
        '_1787025679',
        'Mon, 17 Aug 2026 21:01:19 PDT',
        '2026-08-18T04:01:19Z',
        '<!DOCTYPE x [<!ENTITY a "aaaa">]>',
        '&a;',
        '<?xml version="1.0"?>',
        '<!-- -->',
        '"',
        '=',
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

describe('feed readers never throw anything but FeedFormatError', () => {
  it.each(FEED_KINDS)('%s: random strings', (kind) => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => readsOrRefuses(kind, [a, b])),
      { numRuns: 300 },
    );
  });

  it.each(FEED_KINDS)('%s: random JSON', (kind) => {
    fc.assert(
      fc.property(fc.json(), fc.json(), (a, b) => readsOrRefuses(kind, [a, b])),
      { numRuns: 300 },
    );
  });

  it('statuspage: JSON shaped like its documents', () => {
    const summary = fc.record(
      {
        page: fc.option(fc.record({ url: fc.option(fc.string()) }, { requiredKeys: [] })),
        status: fc.record({
          indicator: fc.oneof({ arbitrary: fc.constantFrom('none', 'minor', 'major', 'critical', 'maintenance'), weight: 9 }, { arbitrary: word, weight: 1 }),
        }),
        components: fc.array(fc.record({ name: fc.string(), status: fc.string(), group: fc.option(fc.boolean()) }, { requiredKeys: ['name', 'status'] })),
        incidents: fc.array(statuspageIncident, { maxLength: 4 }),
        scheduled_maintenances: fc.array(statuspageIncident, { maxLength: 3 }),
      },
      { requiredKeys: ['status'] },
    );
    const list = fc.record({ incidents: fc.array(statuspageIncident, { maxLength: 4 }) });
    fc.assert(
      fc.property(summary, list, (s, l) => readsOrRefuses('statuspage', [JSON.stringify(s), JSON.stringify(l)])),
      { numRuns: 1500 },
    );
  });

  it('gcp: JSON shaped like its document', () => {
    fc.assert(
      fc.property(fc.array(gcpIncident, { maxLength: 4 }), (list) => readsOrRefuses('gcp', [JSON.stringify(list)])),
      { numRuns: 500 },
    );
  });

  it('instatus: JSON shaped like its document', () => {
    const summary = fc.record(
      {
        page: fc.record({ url: fc.string(), status: word }, { requiredKeys: [] }),
        activeIncidents: fc.option(fc.array(instatusItem, { maxLength: 4 })),
        activeMaintenances: fc.option(fc.array(instatusItem, { maxLength: 4 })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(summary, (s) => readsOrRefuses('instatus', [JSON.stringify(s)])),
      { numRuns: 500 },
    );
  });

  it.each(['rss', 'atom'] as const)('%s: text shaped like XML feeds', (kind) => {
    const wrapped = xmlish.map((inner) => (kind === 'rss' ? `<rss><channel><item>${inner}</item></channel></rss>` : `<feed><entry>${inner}</entry></feed>`));
    fc.assert(
      fc.property(fc.oneof(xmlish, wrapped), (body) => readsOrRefuses(kind, [body])),
      { numRuns: 1000 },
    );
  });
});
