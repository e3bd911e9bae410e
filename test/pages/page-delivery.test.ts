import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, not decoded. */
  body: Buffer;
}

/** A GET as sent, answer bytes as received: fetch would add its own Accept-Encoding and decode. */
function get(t: TestServer, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decoded = (a: RawAnswer): string => {
  const coding = a.headers['content-encoding'];
  return (coding === 'gzip' ? gunzipSync(a.body) : coding === 'br' ? brotliDecompressSync(a.body) : a.body).toString('utf8');
};

async function renders(t: TestServer, route: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`statusbot_page_renders_total{route="${route}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** The GETs of `route` answered 200, as the request metrics count them. */
async function answered(t: TestServer, route: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`statusbot_http_request_duration_seconds_count{route="${route}",method="GET",status="200"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('public pages compressed, validated and cached per what they show', () => {
  let t: TestServer;
  let incidentId: string;
  beforeAll(async () => {
    t = await startTestServer({ config: PAGES_CONFIG });
    const created = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Slow API', description: 'Looking.', status: 'minor' } });
    incidentId = created.body.data.id;
  });
  afterAll(async () => {
    await t.stop();
  });

  it('sends gzip or brotli as Accept-Encoding asks, q-values honoured, the same page in each', async () => {
    const plain = await get(t, '/status/acme');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const page = plain.body.toString('utf8');
    expect(page).toContain('Slow API');

    const cases: [string, string | undefined][] = [
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['br;q=0, gzip;q=0.2', 'gzip'],
      ['*', 'br'],
      ['br;q=0, *;q=0.5', 'gzip'],
      ['gzip;q=0, br;q=0', undefined],
      ['deflate', undefined],
      ['gzip, identity;q=0', 'gzip'],
      ['x-gzip', 'gzip'],
    ];
    for (const [accept, coding] of cases) {
      const answer = await get(t, '/status/acme', { 'accept-encoding': accept });
      expect([accept, answer.status, answer.headers['content-encoding']]).toEqual([accept, 200, coding]);
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
      expect(decoded(answer)).toBe(page);
    }
    const gzipped = await get(t, '/status/acme', { 'accept-encoding': 'gzip' });
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 3);
  });

  it('answers 406 when every coding is refused, identity included', async () => {
    for (const accept of ['identity;q=0', '*;q=0', 'deflate, identity;q=0']) {
      const answer = await get(t, '/status/acme', { 'accept-encoding': accept });
      expect([accept, answer.status]).toEqual([accept, 406]);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });

  it('compresses feeds, the Statuspage documents, the stylesheet, and gives each coding its own ETag', async () => {
    for (const path of ['/status/acme/feed.rss', '/status/acme/feed.atom', '/status/acme/api/v2/summary.json', '/status/acme/api/v2/incidents.json']) {
      const plain = await get(t, path);
      const gzip = await get(t, path, { 'accept-encoding': 'gzip' });
      const br = await get(t, path, { 'accept-encoding': 'br' });
      expect([path, gzip.headers['content-encoding'], br.headers['content-encoding']]).toEqual([path, 'gzip', 'br']);
      expect(decoded(gzip)).toBe(plain.body.toString('utf8'));
      expect(decoded(br)).toBe(plain.body.toString('utf8'));
      const tags = new Set([plain.headers.etag, gzip.headers.etag, br.headers.etag]);
      expect(tags.size).toBe(3);
    }
    const css = /href="(\/assets\/statusbot\.css[^"]*)"/.exec((await get(t, '/status/acme')).body.toString('utf8'))![1]!;
    expect((await get(t, css, { 'accept-encoding': 'br' })).headers['content-encoding']).toBe('br');
  });

  it('answers 304 to If-None-Match by weak comparison, to *, and to a list holding the tag', async () => {
    const gzip = await get(t, '/status/acme', { 'accept-encoding': 'gzip' });
    const tag = gzip.headers.etag as string;
    expect(tag).toMatch(/^"[^"]+"$/);
    const weak = `W/${tag}`;
    for (const [ifNoneMatch, status] of [
      [tag, 304],
      [weak, 304],
      ['*', 304],
      [`"nope", ${weak}`, 304],
      ['"nope"', 200],
      ['W/"nope", "other"', 200],
    ] as const) {
      const answer = await get(t, '/status/acme', { 'accept-encoding': 'gzip', 'if-none-match': ifNoneMatch });
      expect([ifNoneMatch, answer.status]).toEqual([ifNoneMatch, status]);
      if (status === 304) {
        expect(answer.body.length).toBe(0);
        expect(answer.headers.etag).toBe(tag);
        expect(answer.headers.vary).toBe('Accept-Encoding');
      }
    }
    // What a proxy that gzips sends back (W/ and the tag of the body it was given) names the same page.
    const plainTag = (await get(t, '/status/acme')).headers.etag as string;
    expect((await get(t, '/status/acme', { 'accept-encoding': 'gzip', 'if-none-match': `W/${plainTag}` })).status).toBe(304);
    // Once the page changes, the old tag no longer matches.
    await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'identified', description: 'Found it.' } });
    expect((await get(t, '/status/acme', { 'accept-encoding': 'gzip', 'if-none-match': weak })).status).toBe(200);
  });

  it('dates feeds and pages by their data (Last-Modified), and answers If-Modified-Since unless If-None-Match is sent', async () => {
    const incident = await t.api('GET', `/api/v2/incidents/${incidentId}`);
    const updatedAt = new Date(incident.body.data.attributes.updated_at);
    t.clock.advance(5 * 60_000);
    const feed = await get(t, '/status/acme/feed.rss');
    const lastModified = feed.headers['last-modified'] as string;
    expect(lastModified).toBe(updatedAt.toUTCString());
    expect((await get(t, '/status/acme/feed.rss', { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get(t, '/status/acme/feed.rss', { 'if-modified-since': new Date(Date.parse(lastModified) + 60_000).toUTCString() })).status).toBe(304);
    expect((await get(t, '/status/acme/feed.rss', { 'if-modified-since': new Date(Date.parse(lastModified) - 1_000).toUTCString() })).status).toBe(200);
    expect((await get(t, '/status/acme/feed.rss', { 'if-modified-since': 'not a date' })).status).toBe(200);
    expect((await get(t, '/status/acme/feed.rss', { 'if-modified-since': lastModified, 'if-none-match': '"nope"' })).status).toBe(200);
    expect((await get(t, `/status/acme/incidents/${incidentId}`)).headers['last-modified']).toBe(updatedAt.toUTCString());
  });

  it('dates a status page no earlier than its data, and keeps the date while what it shows stays the same', async () => {
    const first = await get(t, '/', { host: 'status.acme.example' });
    const lastModified = Date.parse(first.headers['last-modified'] as string);
    const incident = await t.api('GET', `/api/v2/incidents/${incidentId}`);
    expect(lastModified).toBeGreaterThanOrEqual(Math.floor(Date.parse(incident.body.data.attributes.updated_at) / 1000) * 1000);
    expect((await get(t, '/', { host: 'status.acme.example', 'if-modified-since': first.headers['last-modified'] as string })).status).toBe(304);

    // A change the page does not show (a service on no page): rendered again, the same page, the same date.
    t.clock.advance(60_000);
    expect((await t.api('POST', '/api/v2/incidents', { body: { service_id: 1003, title: 'Hidden' } })).status).toBe(201);
    const again = await get(t, '/', { host: 'status.acme.example' });
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['last-modified']).toBe(first.headers['last-modified']);

    // A change it shows: a later date, and the old one no longer holds.
    t.clock.advance(60_000);
    await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'monitoring', description: 'Watching.' } });
    const changed = await get(t, '/', { host: 'status.acme.example' });
    expect(Date.parse(changed.headers['last-modified'] as string)).toBeGreaterThan(lastModified);
    expect((await get(t, '/', { host: 'status.acme.example', 'if-modified-since': first.headers['last-modified'] as string })).status).toBe(200);
  });

  it('renders a page once for any parameters it does not read (tracking tags), once per value of those it reads', async () => {
    await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'monitoring', description: 'Better.' } });
    const before = await renders(t, '/status/:slug');
    const first = await get(t, '/status/acme?utm_source=0');
    for (let n = 1; n < 50; n++) {
      const answer = await get(t, `/status/acme?utm_source=${n}&ref=x${n}`);
      expect(answer.headers.etag).toBe(first.headers.etag);
    }
    expect((await get(t, '/status/acme')).headers.etag).toBe(first.headers.etag);
    expect(await renders(t, '/status/:slug')).toBe(before + 1);

    const historyBefore = await renders(t, '/status/:slug/history');
    for (const query of ['?page=1', '?page=1&utm_source=a', '?utm_source=b&page=1', '?page=2', '?page=2&fbclid=c']) {
      expect((await get(t, `/status/acme/history${query}`)).status).toBe(200);
    }
    expect(await renders(t, '/status/:slug/history')).toBe(historyBefore + 2);
  });

  it('answers a page asked again with the bytes it sent before, each request its own, and a change at once', async () => {
    const before = await answered(t, '/status/:slug');
    const renderedBefore = await renders(t, '/status/:slug');
    const first = await get(t, '/status/acme', { 'accept-encoding': 'gzip' });
    const again = await get(t, '/status/acme', { 'accept-encoding': 'gzip' });
    expect(again.status).toBe(200);
    expect(again.body.equals(first.body)).toBe(true);
    const { 'x-request-id': firstId, date: _d1, ...firstHeaders } = first.headers;
    const { 'x-request-id': againId, date: _d2, ...againHeaders } = again.headers;
    expect(againHeaders).toEqual(firstHeaders);
    expect(againId).not.toBe(firstId);
    expect(await answered(t, '/status/:slug')).toBe(before + 2);
    expect(await renders(t, '/status/:slug')).toBeLessThanOrEqual(renderedBefore + 1);

    // Each coding, HEAD and another host are answers of their own.
    expect((await get(t, '/status/acme', { 'accept-encoding': 'br' })).headers['content-encoding']).toBe('br');
    const plain = await get(t, '/status/acme');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(decoded(again)).toBe(plain.body.toString('utf8'));
    const head = await new Promise<{ status: number; length: string | undefined; bytes: number }>((resolve, reject) => {
      const req = request(`${t.url}/status/acme`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode!, length: res.headers['content-length'], bytes }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(head).toEqual({ status: 200, length: String(first.body.length), bytes: 0 });
    expect((await get(t, '/', { host: 'status.acme.example' })).body.toString('utf8')).toContain('Slow API');
    const elsewhere = await get(t, '/', { host: 'other.example' });
    expect(elsewhere.body.toString('utf8')).not.toContain('Slow API');

    // A change the page shows is on the very next answer.
    await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'monitoring', description: 'Fixed on the next ask.' } });
    const changed = await get(t, '/status/acme', { 'accept-encoding': 'gzip' });
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(decoded(changed)).toContain('Fixed on the next ask.');
    expect((await get(t, '/status/acme', { 'accept-encoding': 'gzip' })).body.equals(changed.body)).toBe(true);
  });

  it('renders a changed page once for the requests that ask for it together', async () => {
    await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'monitoring', description: 'Asked by many at once.' } });
    const before = await renders(t, '/status/:slug');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get(t, '/status/acme', i % 2 === 0 ? { 'accept-encoding': 'gzip' } : {})));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    for (const answer of answers) expect(decoded(answer)).toContain('Asked by many at once.');
    expect(await renders(t, '/status/:slug')).toBe(before + 1);
  });

  it('answers addresses under /status/ that name nothing with an HTML page of the site and a link home', async () => {
    for (const [path, home] of [
      ['/status/acme/', '/status/acme'],
      ['/status/acme/nope', '/status/acme'],
      ['/status/acme/incidents/999999', '/status/acme'],
      ['/status/nope', '/'],
      ['/status/nope/feed.rss', '/'],
    ] as const) {
      const answer = await get(t, path);
      expect([path, answer.status, answer.headers['content-type']]).toEqual([path, 404, 'text/html; charset=utf-8']);
      const html = answer.body.toString('utf8');
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain('There is nothing at this address.');
      expect(html).toContain(`<a href="${home}">Go to ${home === '/' ? 'the home page' : 'Acme status'}</a>`);
    }
    const own = await get(t, '/nope', { host: 'status.acme.example' });
    expect(own.status).toBe(404);
    expect(own.body.toString('utf8')).toContain('<a href="/">Go to Acme on its own host</a>');
  });

  it('serves a favicon at the root of every host, linked from every page', async () => {
    for (const host of [undefined, 'status.acme.example']) {
      const icon = await get(t, '/favicon.ico', host ? { host } : {});
      expect(icon.status).toBe(200);
      expect(icon.headers['content-type']).toBe('image/vnd.microsoft.icon');
      expect(icon.headers['cache-control']).toMatch(/max-age=\d+/);
      expect([...icon.body.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
      expect(icon.body.readUInt8(6)).toBe(16);
    }
    expect((await get(t, '/status/acme')).body.toString('utf8')).toContain('<link rel="icon" href="/favicon.ico"');
    expect((await get(t, '/status/acme/nope')).body.toString('utf8')).toContain('<link rel="icon" href="/favicon.ico"');
  });
});
