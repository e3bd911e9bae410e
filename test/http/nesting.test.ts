import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH } from '../../src/domain/validation.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { LogRecord } from '../helpers/loggers.js';
import { ACME_BOARD, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * A body nested deeper than any schema needs is refused in the error shape
 * (422, one error naming the limit), however deep it goes, on every write
 * endpoint; nothing is stored and nothing reaches the log as a failure.
 */

let s: TestServer;
let incidentId: string;
const records: LogRecord[] = [];

async function snapshot(server: TestServer): Promise<Record<string, unknown[]>> {
  const db = server.ctx.db;
  return {
    incidents: await db.selectFrom('incidents').selectAll().orderBy('id').execute(),
    incident_updates: await db.selectFrom('incident_updates').selectAll().orderBy('id').execute(),
    outbox: await db.selectFrom('outbox').selectAll().orderBy('id').execute(),
    board_services: await db.selectFrom('board_services').selectAll().orderBy('board_id').orderBy('service_id').execute(),
    user_reports: await db.selectFrom('user_reports').selectAll().execute(),
    audit_events: await db.selectFrom('audit_events').selectAll().orderBy('id').execute(),
  };
}

beforeAll(async () => {
  s = await startTestServer({ logger: recordingLogger(records) });
  const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Existing' } });
  expect(created.status, created.text).toBe(201);
  incidentId = created.body.data.id;
});
afterAll(async () => {
  await s?.stop();
});

/** A body whose arrays or objects nest `depth` levels, the body itself being the first, under `field`. */
function nestedBody(field: string, shape: 'array' | 'object', depth: number): string {
  const inner = depth - 1;
  const [open, close] = shape === 'array' ? ['[', ']'] : ['{"a":', '}'];
  const leaf = shape === 'array' ? '' : '1';
  return `{"${field}":${open.repeat(inner)}${leaf}${close.repeat(inner)}}`;
}

const endpoints: { method: string; label: string; path: () => string; field: string }[] = [
  { method: 'POST', label: '/incidents', path: () => '/api/v2/incidents', field: 'title' },
  { method: 'PATCH', label: '/incidents/:id', path: () => `/api/v2/incidents/${incidentId}`, field: 'description' },
  { method: 'POST', label: '/services/:name/reports', path: () => '/api/v2/services/demo-service/reports', field: 'description' },
  { method: 'POST', label: '/boards/:id/services/:name', path: () => `/api/v2/boards/${ACME_BOARD}/services/acme-cloud`, field: 'tags' },
  { method: 'PATCH', label: '/boards/:id/services/:name', path: () => `/api/v2/boards/${ACME_BOARD}/services/demo-service`, field: 'tags' },
];

const TOO_DEEP = `the body nests arrays and objects more than ${MAX_INPUT_DEPTH} levels deep`;

describe(`bodies nested around and far beyond the limit of ${MAX_INPUT_DEPTH} levels`, () => {
  for (const { method, label, path, field } of endpoints) {
    for (const shape of ['array', 'object'] as const) {
      for (const depth of [MAX_INPUT_DEPTH - 1, MAX_INPUT_DEPTH, MAX_INPUT_DEPTH + 1, 2_000, 100_000]) {
        const refusedForDepth = depth > MAX_INPUT_DEPTH;
        it(`${method} ${label} with ${depth} levels of ${shape}s: 422, ${refusedForDepth ? 'the limit named' : 'the field named'}, nothing stored`, async () => {
          const before = await snapshot(s);
          const errorsBefore = records.filter((r) => r.level === 'error').length;
          const res = await s.api(method, path(), { rawBody: nestedBody(field, shape, depth), headers: { 'content-type': 'application/json' } });
          expect(res.status, res.text.slice(0, 300)).toBe(422);
          expect(res.headers.get('content-type')).toMatch(/^application\/json/);
          expect(Object.keys(res.body)).toEqual(['errors']);
          const details = res.body.errors.map((e: { detail: string }) => e.detail);
          for (const e of res.body.errors) expect(e).toMatchObject({ status: 422, title: 'Unprocessable entity' });
          if (refusedForDepth) {
            expect(details).toEqual([TOO_DEEP]);
            expect(res.body.errors[0].source.pointer.startsWith(`/${field}/`)).toBe(true);
          } else {
            expect(details.join(' ')).toContain(field);
            expect(details.join(' ')).not.toContain('levels deep');
          }
          expect(await snapshot(s)).toEqual(before);
          expect(records.filter((r) => r.level === 'error').slice(errorsBefore)).toEqual([]);
        });
      }
    }
  }

  it('a body within the limit is still accepted', async () => {
    const res = await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { body: { tags: ['core', 'edge'] } });
    expect(res.status, res.text).toBe(200);
  });

  it('the server answers as before after the deepest bodies', async () => {
    const res = await s.api('GET', `/api/v2/incidents/${incidentId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.title).toBe('Existing');
  });
});
