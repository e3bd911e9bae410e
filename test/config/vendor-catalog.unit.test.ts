import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FEED_KINDS } from '../../src/ingest/vendor-snapshot.js';
import { type CatalogVendor, FIRST_VENDOR_ID, parseCatalogFile, parseVendorCatalog, VENDOR_CATALOG } from '../../src/config/vendor-catalog.js';

const catalogText = readFileSync(new URL('../../src/ingest/vendor-catalog.json', import.meta.url), 'utf8');
const entries = JSON.parse(catalogText) as CatalogVendor[];
const sources = readFileSync(new URL('../../src/ingest/VENDORS.md', import.meta.url), 'utf8');

function byUrlname(urlname: string): CatalogVendor | undefined {
  return VENDOR_CATALOG.find((v) => v.urlname === urlname);
}

describe('the built-in vendor catalog file', () => {
  it('is loaded whole: every entry of the file is a vendor statusbot knows', () => {
    expect(VENDOR_CATALOG).toEqual(entries);
    expect(VENDOR_CATALOG.length).toBeGreaterThanOrEqual(400);
  });

  it('keeps one entry per line, sorted by urlname, so that a change is a one-line diff', () => {
    const lines = catalogText.trimEnd().split('\n');
    expect(lines[0]).toBe('[');
    expect(lines.at(-1)).toBe(']');
    const body = lines.slice(1, -1);
    expect(body).toHaveLength(entries.length);
    for (const [i, line] of body.entries()) expect(JSON.parse(line.replace(/,$/, ''))).toEqual(entries[i]);
    const urlnames = entries.map((e) => e.urlname);
    expect(urlnames).toEqual([...urlnames].sort());
  });

  it('gives every entry a slug, a name, https addresses and a known feed kind', () => {
    for (const e of entries) {
      expect(Object.keys(e).sort(), e.urlname).toEqual(['feed', 'id', 'name', 'status_page_url', 'urlname']);
      expect(Object.keys(e.feed).sort(), e.urlname).toEqual(['kind', 'url']);
      expect(e.urlname).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(e.name.trim(), e.urlname).toBe(e.name);
      expect(e.name.length, e.urlname).toBeGreaterThan(0);
      expect(new URL(e.status_page_url).protocol, e.urlname).toBe('https:');
      expect(new URL(e.feed.url).protocol, e.urlname).toBe('https:');
      expect(FEED_KINDS, e.urlname).toContain(e.feed.kind);
    }
  });

  it("gives every feed the address its kind's reader expects", () => {
    for (const { urlname, feed } of entries) {
      const url = new URL(feed.url);
      const base = url.pathname === '/' && url.search === '' && url.hash === '';
      if (feed.kind === 'slack') expect(feed.url, urlname).toBe('https://slack-status.com');
      else if (feed.kind === 'statusio') expect(feed.url, urlname).toMatch(/^https:\/\/api\.status\.io\/1\.0\/status\/[0-9a-f]{24}$/);
      else if (feed.kind === 'gcp') expect(url.pathname, urlname).toMatch(/\/incidents\.json$/);
      else if (feed.kind === 'salesforce') expect(feed.url, urlname).toBe('https://api.status.salesforce.com/v1/instances/status/preview');
      else if (feed.kind === 'rss' || feed.kind === 'atom') expect(base, `${urlname}: a feed, not a site`).toBe(false);
      else expect(base, `${urlname}: a page's base address`).toBe(true);
    }
  });

  it('names each vendor, urlname and feed address once', () => {
    const unique = (values: string[]) => expect(new Set(values).size).toBe(values.length);
    unique(entries.map((e) => e.urlname));
    unique(entries.map((e) => e.name.toLowerCase()));
    unique(
      entries.map((e) => {
        const url = new URL(e.feed.url);
        return `${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}`;
      }),
    );
  });

  it('gives every vendor its own fixed service id, from 100,100 to 899,999', () => {
    const ids = entries.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of entries) {
      expect(Number.isInteger(e.id), e.urlname).toBe(true);
      expect(e.id, e.urlname).toBeGreaterThanOrEqual(100_100);
      expect(e.id, e.urlname).toBeLessThanOrEqual(899_999);
    }
  });

  it('keeps the ids vendors were first given: an id never moves to another vendor', () => {
    // Installs and API users hold these; a renumbered file would move every vendor's incidents' service_id.
    const pinned = { '1password': 100_100, aws: 100_132, github: 100_275, slack: 100_492, stripe: 100_513, zwift: 100_576 };
    expect(Object.fromEntries(Object.keys(pinned).map((u) => [u, byUrlname(u)?.id]))).toEqual(pinned);
  });

  it('has one row in VENDORS.md per entry, with its kind and a source', () => {
    const rows = [...sources.matchAll(/^\| ([a-z0-9-]+) \| ([a-z]+) \| (.+) \|$/gm)].filter((m) => m[1] !== 'urlname');
    expect(rows.map((m) => m[1])).toEqual(entries.map((e) => e.urlname));
    for (const [, urlname, kind, source] of rows) {
      expect(kind, urlname).toBe(byUrlname(urlname!)?.feed.kind);
      expect(source!.trim().length, urlname).toBeGreaterThan(10);
    }
  });
});

describe('vendors whose pages moved or have a reader of their own', () => {
  it('reads Recurly from its incident.io page, Railway from status.railway.com, Slack from its status API', () => {
    expect(byUrlname('recurly')?.feed).toEqual({ kind: 'incidentio', url: 'https://status.recurly.com' });
    expect(byUrlname('railway')).toMatchObject({
      status_page_url: 'https://status.railway.com',
      feed: { kind: 'instatus', url: 'https://status.railway.com' },
    });
    expect(byUrlname('slack')?.feed).toEqual({ kind: 'slack', url: 'https://slack-status.com' });
  });

  it("reads Salesforce from its Trust status API, every instance's status at once", () => {
    expect(byUrlname('salesforce')).toMatchObject({
      status_page_url: 'https://status.salesforce.com',
      feed: { kind: 'salesforce', url: 'https://api.status.salesforce.com/v1/instances/status/preview' },
    });
  });

  it('reads GitLab and Docker from their status.io pages', () => {
    expect(byUrlname('gitlab')?.feed).toEqual({ kind: 'statusio', url: 'https://api.status.io/1.0/status/5b36dc6502d06804c08349f7' });
    expect(byUrlname('docker')?.feed).toEqual({ kind: 'statusio', url: 'https://api.status.io/1.0/status/533c6539221ae15e3f000031' });
  });

  it('knows vendors teams depend on, each with a feed', () => {
    for (const urlname of [
      'microsoft-365',
      'okta',
      'auth0',
      'intercom',
      'postmark',
      'databricks',
      'hetzner',
      'ovhcloud-us',
      'plaid',
      'square',
      'perplexity',
      'mistral',
    ]) {
      expect(byUrlname(urlname)?.feed.url, urlname).toMatch(/^https:\/\//);
    }
  });

  it("reads Okta's FeedBurner feed as the Atom document it is, Hetzner's English feed, and Mistral's Checkly page by its RSS feed", () => {
    expect(byUrlname('okta')?.feed).toEqual({ kind: 'atom', url: 'https://feeds.feedburner.com/OktaTrustRSS' });
    expect(byUrlname('hetzner')?.feed).toEqual({ kind: 'atom', url: 'https://status.hetzner.com/en.atom' });
    expect(byUrlname('mistral')).toMatchObject({
      status_page_url: 'https://status.mistral.ai',
      feed: { kind: 'rss', url: 'https://status.mistral.ai/feed.rss' },
    });
  });

  it("reads OVHcloud's European status pages, one per product line, besides its US page", () => {
    for (const line of ['bare-metal-servers', 'network', 'public-cloud', 'web-cloud']) {
      const page = `https://${line}.status-ovhcloud.com`;
      expect(VENDOR_CATALOG.find((v) => v.status_page_url === page)?.feed, line).toEqual({ kind: 'statuspage', url: page });
    }
    expect(byUrlname('ovhcloud-hosted-private-cloud')?.feed).toEqual({ kind: 'rss', url: 'https://hosted-private-cloud.status-ovhcloud.com/history.rss' });
  });
});

describe('a catalog file with a bad entry', () => {
  let nextId = FIRST_VENDOR_ID;
  const good = (urlname: string): CatalogVendor => ({
    id: nextId++,
    urlname,
    name: `Vendor ${urlname}`,
    status_page_url: `https://status.${urlname}.example`,
    feed: { kind: 'statuspage', url: `https://status.${urlname}.example` },
  });
  const rejects = (bad: unknown[], ...reasons: RegExp[]) => {
    let message = '';
    try {
      parseVendorCatalog(bad);
    } catch (error) {
      message = (error as Error).message;
    }
    for (const reason of reasons) expect(message).toMatch(reason);
  };

  it('is refused with the entry and what is wrong with it', () => {
    rejects([good('acme'), { ...good('x'), urlname: 'Acme Cloud' }], /entry 1 \(urlname "Acme Cloud"\): urlname should be a slug/);
    rejects([{ ...good('acme'), status_page_url: 'http://status.acme.example' }], /urlname "acme"\): status_page_url should be an absolute https URL/);
    rejects([{ ...good('acme'), feed: { kind: 'html', url: 'https://status.acme.example' } }], /urlname "acme"\): feed\.kind /);
    rejects([{ ...good('acme'), extra: true }], /urlname "acme"\)/);
    rejects([{ name: 'No slug' }], /entry 0: urlname /);
  });

  it("is refused when a feed's address is not what its kind reads", () => {
    const feed = (kind: string, url: string) => [{ ...good('acme'), feed: { kind, url } }];
    rejects(feed('statuspage', 'https://status.acme.example/api/v2/summary.json'), /"acme"\): feed\.url should be the page's base address/);
    rejects(feed('rss', 'https://status.acme.example'), /"acme"\): feed\.url should be the rss feed's own address/);
    rejects(feed('statusio', 'https://status.acme.example/pages/5b36dc6502d06804c08349f7/rss'), /"acme"\): feed\.url should be https:\/\/api\.status\.io/);
    rejects(feed('slack', 'https://status.slack.com'), /"acme"\): feed\.url should be https:\/\/slack-status\.com/);
    rejects(feed('gcp', 'https://status.cloud.google.com/feed.atom'), /"acme"\): feed\.url should be the incidents\.json address/);
  });

  it('is refused when an id is repeated or out of the range of vendor ids', () => {
    const acme = good('acme');
    rejects([acme, { ...good('globex'), id: acme.id }], /urlname "globex": id \d+ is already the id of "acme"/);
    rejects([{ ...good('acme'), id: 1004 }], /urlname "acme"\): id should be from 100100 to 899999/);
    rejects([{ ...good('acme'), id: 900_000 }], /urlname "acme"\): id should be from 100100 to 899999/);
    rejects([{ ...good('acme'), id: undefined }], /urlname "acme"\): id /);
  });

  it("keeps a retired vendor's id and urlname from being given again", () => {
    const retired = { id: 100_200, urlname: 'oldco', retired: true };
    expect(parseCatalogFile([good('acme'), retired])).toEqual({ vendors: [expect.objectContaining({ urlname: 'acme' })], retired: [retired] });
    rejects([retired, { ...good('globex'), id: 100_200 }], /urlname "globex": id 100200 is already the id of "oldco"/);
    rejects([retired, good('oldco')], /urlname "oldco" appears more than once/);
  });

  it('is refused when a urlname, a name or a feed address is repeated', () => {
    rejects([good('acme'), good('acme')], /urlname "acme" appears more than once/);
    rejects([good('acme'), { ...good('globex'), name: 'vendor ACME' }], /urlname "globex": name "vendor ACME" is already the name of "acme"/);
    rejects(
      [good('acme'), { ...good('globex'), feed: { kind: 'statuspage', url: 'https://STATUS.acme.example/' } }],
      /urlname "globex": feed .* is already read for "acme"/,
    );
  });

  it('is read when every entry is good', () => {
    expect(parseVendorCatalog([good('acme'), good('globex')]).map((v) => v.urlname)).toEqual(['acme', 'globex']);
  });
});
