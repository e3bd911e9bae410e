import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * The tracker pages of things no status page shows answer exactly as those of
 * things that do not exist: nobody can learn a company's private service names
 * or incident ids by asking.
 */

let t: TestServer;
let secretIncident: string;
let reportedIncident: string;

beforeAll(async () => {
  t = await startTestServer({ config: PAGES_CONFIG });
  // acme-secret is on no status page; it has an open incident all the same.
  const secret = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1003, title: 'Secret trouble' } });
  expect(secret.status, secret.text).toBe(201);
  secretIncident = secret.body.data.id;
  // A user report on a service the page shows is not the company's word: not public either.
  const reported = await t.ctx.db
    .insertInto('incidents')
    .values({
      service_id: 1001,
      title: 'Reported by users',
      status: 'minor',
      description: 'Several users report a problem',
      resolved: 0,
      url: null,
      user_generated: 1,
      severity_from_provider: null,
      external_key: null,
      created_at: t.clock.now().getTime(),
      updated_at: t.clock.now().getTime(),
      resolved_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  reportedIncident = String(reported.id);
});
afterAll(async () => {
  await t.stop();
});

/** What a visitor can tell apart: the status, every header but those that differ on every request, the body. */
async function answer(path: string, method = 'GET') {
  const res = await fetch(`${t.url}${path}`, { method });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'date' && name !== 'x-request-id') headers[name] = value;
  });
  return { status: res.status, headers, body: await res.text() };
}

describe('tracker pages of private things', () => {
  it('a custom service on no status page answers byte for byte as an unknown name', async () => {
    const unknown = await answer('/services/no-such-service');
    expect(unknown.status).toBe(404);
    for (const method of ['GET', 'HEAD']) {
      expect(await answer('/services/acme-secret', method)).toEqual(await answer('/services/no-such-service', method));
      expect(await answer('/services/acme-secret', method)).toEqual(await answer('/services/acme-secreu', method));
    }
    expect(unknown.body).not.toContain('Acme Secret');
  });

  it('a custom service on a status page has its page', async () => {
    const shown = await answer('/services/acme-api');
    expect(shown.status).toBe(200);
    expect(shown.body).toContain('Acme API');
  });

  it('an incident of a service on no status page, and a user report, answer byte for byte as an unknown id', async () => {
    const unknown = await answer('/incidents/98765432');
    expect(unknown.status).toBe(404);
    for (const method of ['GET', 'HEAD']) {
      expect(await answer(`/incidents/${secretIncident}`, method)).toEqual(await answer('/incidents/98765432', method));
      expect(await answer(`/incidents/${reportedIncident}`, method)).toEqual(await answer('/incidents/98765432', method));
    }
  });

  it('the tracker_url the API gives for a private service leads to the same 404', async () => {
    const incident = await t.api('GET', `/api/v2/incidents/${secretIncident}`);
    const trackerUrl = new URL(incident.body.data.attributes.tracker_url);
    expect(await answer(trackerUrl.pathname)).toEqual(await answer('/incidents/98765432'));
  });
});
