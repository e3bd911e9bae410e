import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { LogRecord } from '../helpers/loggers.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * A path holding a NUL character names nothing (404); one whose percent-encoding
 * is not UTF-8 text (a lone byte, a broken sequence, an overlong encoding) is a
 * 400. Either way in the shape of the paths it is under: HTML for the public
 * pages, the error shape for the API; never a 5xx, on every engine.
 */

let s: TestServer;
let incidentId: string;
const records: LogRecord[] = [];

beforeAll(async () => {
  s = await startTestServer({ config: PAGES_CONFIG, logger: recordingLogger(records) });
  const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Shown' } });
  expect(created.status, created.text).toBe(201);
  incidentId = created.body.data.id;
});
afterAll(async () => {
  await s?.stop();
});

/** Bytes that are no UTF-8 text: a broken two-byte sequence, a lone byte, overlong encodings of NUL, of '/' and (three bytes) of '/', a surrogate. */
const NOT_UTF8 = ['%C3%28', '%FF', '%C0%80', '%C0%AF', '%E0%80%AF', '%ED%A0%80'];

/** Page paths with `{x}` where a name or id goes. */
const PAGE_PATHS = [
  '/status/{x}',
  '/status/acme{x}',
  '/status/{x}/history',
  '/status/{x}/incidents/1',
  '/status/acme/incidents/{x}',
  '/status/acme/monitors/{x}',
  '/status/{x}/feed.atom',
  '/status/{x}/badge.svg',
  '/status/{x}/subscribe/confirm?token=x',
  '/services/{x}',
  '/services/acme-api{x}',
  '/incidents/{x}',
];

/** The Statuspage-compatible API of pages answers in the API's error shape. */
const STATUSPAGE_PATHS = ['/status/{x}/api/v2/summary.json', '/status/{x}/api/v2/incidents/unresolved.json'];

const API_PATHS = ['/api/v2/services/{x}/incidents', '/api/v2/services/acme-api{x}/incidents', '/api/v2/incidents/{x}', '/api/v2/boards/{x}'];

describe('NUL and text that is not UTF-8 in page paths', () => {
  /** The 404 page says the same wherever it is; only its link home differs (the status page the path was under, or the home). */
  const withoutHome = (html: string): string => html.replace(/<header[\s\S]*?<\/header>/, '').replace(/<a href="[^"]*">Go to [^<]*<\/a>/, '');
  let unknownPage: string;
  beforeAll(async () => {
    const res = await fetch(`${s.url}/status/no-such-page`);
    expect(res.status).toBe(404);
    unknownPage = withoutHome(await res.text());
  });

  for (const template of PAGE_PATHS) {
    it(`GET ${template.replace('{x}', '%00')} is the page of an unknown thing`, async () => {
      const res = await fetch(`${s.url}${template.replace('{x}', '%00')}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(withoutHome(await res.text())).toBe(unknownPage);
    });

    it(`GET ${template} with bytes that are not UTF-8 is a 400 page`, async () => {
      for (const bytes of NOT_UTF8) {
        const path = template.replace('{x}', bytes);
        const res = await fetch(`${s.url}${path}`);
        expect(res.status, path).toBe(400);
        expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
        expect(await res.text(), path).toContain('not valid percent-encoding');
      }
    });
  }

  it('a form posted to a path holding NUL is the page of an unknown thing, and subscribes nobody', async () => {
    const res = await fetch(`${s.url}/status/acme%00/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=someone%40example.com',
    });
    expect(res.status).toBe(404);
    expect(withoutHome(await res.text())).toBe(unknownPage);
    expect(await s.ctx.db.selectFrom('email_subscribers').selectAll().execute()).toEqual([]);
  });

  it('the pages themselves still answer', async () => {
    expect((await fetch(`${s.url}/status/acme`)).status).toBe(200);
    expect((await fetch(`${s.url}/incidents/${incidentId}`)).status).toBe(200);
  });
});

describe('NUL and text that is not UTF-8 in API paths', () => {
  const NOT_FOUND = { errors: [{ status: 404, title: 'Resource not found', detail: 'The resource you are looking for does not exist' }] };

  for (const template of API_PATHS) {
    it(`GET ${template.replace('{x}', '%00')} is 404 in the error shape`, async () => {
      const res = await s.api('GET', template.replace('{x}', '%00'));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    });

    it(`GET ${template} with bytes that are not UTF-8 is 400 in the error shape`, async () => {
      for (const bytes of NOT_UTF8) {
        const path = template.replace('{x}', bytes);
        const res = await s.api('GET', path);
        expect(res.status, path).toBe(400);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        expect(res.body.errors, path).toHaveLength(1);
        expect(res.body.errors[0], path).toMatchObject({ status: 400, title: 'Bad request' });
      }
    });
  }

  for (const template of STATUSPAGE_PATHS) {
    it(`GET ${template.replace('{x}', '%00')} is 404 in the error shape`, async () => {
      const res = await fetch(`${s.url}${template.replace('{x}', '%00')}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(NOT_FOUND);
    });

    it(`GET ${template} with bytes that are not UTF-8 is 400 in the error shape`, async () => {
      for (const bytes of NOT_UTF8) {
        const path = template.replace('{x}', bytes);
        const res = await fetch(`${s.url}${path}`);
        expect(res.status, path).toBe(400);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        expect((await res.json()).errors, path).toEqual([expect.objectContaining({ status: 400, title: 'Bad request' })]);
      }
    });
  }

  it('PATCH and DELETE of an incident whose id holds NUL or bad bytes change nothing', async () => {
    const before = await s.ctx.db.selectFrom('incidents').selectAll().orderBy('id').execute();
    const patch = await s.api('PATCH', `/api/v2/incidents/${incidentId}%00`, { body: { resolved: true } });
    expect(patch.status).toBe(404);
    const remove = await s.api('DELETE', `/api/v2/incidents/${incidentId}%FF`);
    expect(remove.status).toBe(400);
    expect(await s.ctx.db.selectFrom('incidents').selectAll().orderBy('id').execute()).toEqual(before);
  });
});

describe('the log after all the paths above', () => {
  it('holds no failure', () => {
    expect(records.filter((r) => r.level === 'error' || r.level === 'warn')).toEqual([]);
  });
});
