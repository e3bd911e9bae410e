import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingLogger } from '../helpers/loggers.js';
import { createTestDatabase, TEST_ENGINE, TEST_POSTGRES_URL } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

async function asAdmin(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * A login role of its own, for this test's server only: its CONNECTION LIMIT is what runs out, so that
 * PostgreSQL refuses the server's connections with 53300 ("too many connections") while every other
 * test sharing the server goes on. It is a member of the role that owns the test databases (so it may
 * use them), but no superuser, whom no limit binds.
 */
async function limitedRole(database: TestDatabase) {
  const name = `statusbot_limited_${randomBytes(5).toString('hex')}`;
  const owner = new URL(TEST_POSTGRES_URL).username || 'postgres';
  await asAdmin(`create role ${name} login nosuperuser in role ${owner}`);
  const url = new URL(database.path);
  url.username = name;
  return {
    url: url.toString(),
    /** No new connection is admitted, and the ones open are ended: the server's connections are all refused. */
    async exhaust() {
      await asAdmin(`alter role ${name} connection limit 0`);
      await asAdmin(`select pg_terminate_backend(pid) from pg_stat_activity where usename = '${name}'`);
    },
    async free() {
      await asAdmin(`alter role ${name} connection limit -1`);
    },
    async drop() {
      await asAdmin(`drop role if exists ${name}`);
    },
  };
}

const UNAVAILABLE = {
  errors: [{ status: 503, title: 'Service unavailable', detail: 'The database cannot be reached right now; nothing was changed. Please try again.' }],
};

describe.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL refusing connections (53300 too many connections)', () => {
  let database: TestDatabase;
  let role: Awaited<ReturnType<typeof limitedRole>>;
  let s: TestServer | undefined;
  const log = recordingLogger();
  beforeAll(async () => {
    database = await createTestDatabase();
    role = await limitedRole(database);
  });
  afterAll(async () => {
    await role?.free();
    await s?.stop();
    await database?.drop();
    await role?.drop();
  });

  it('a replica starting meanwhile waits, saying why, and starts once a connection is admitted', async () => {
    await role.exhaust();
    const starting = startTestServer({ dbPath: role.url, logger: log });
    starting.catch(() => undefined);
    await waitUntil(() => log.records.some((r) => r.level === 'warn' && /refuses connections/.test(r.message)));
    const line = log.records.find((r) => /refuses connections/.test(r.message))!;
    expect(line.message).toMatch(/too many connections for role/);
    await role.free();
    s = await starting;
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it('is answered 503 with Retry-After in the error shape: the key lookup, the API, public pages, /readyz; then recovers', async () => {
    s ??= await startTestServer({ dbPath: role.url, logger: log });
    const server = s;
    expect((await server.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Before' } })).status).toBe(201);
    await role.exhaust();

    // A key not looked up before: it is looked up before any route is known.
    const lookup = await server.api('GET', '/api/v2/services', { key: GLOBEX_KEY });
    expect(lookup.status, lookup.text).toBe(503);
    expect(lookup.headers.get('retry-after')).toBe('5');
    expect(lookup.body).toEqual(UNAVAILABLE);

    const write = await server.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'During' }, key: ACME_KEY });
    expect(write.status, write.text).toBe(503);
    expect(write.headers.get('retry-after')).toBe('5');
    expect(write.body).toEqual(UNAVAILABLE);

    const page = await fetch(`${server.url}/status/acme-status`);
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe('5');
    const documents = await fetch(`${server.url}/status/acme-status/api/v2/summary.json`);
    expect(documents.status).toBe(503);
    expect(documents.headers.get('retry-after')).toBe('5');
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    await role.free();
    await waitUntil(async () => (await fetch(`${server.url}/readyz`)).status === 200);
    expect((await server.api('GET', '/api/v2/services', { key: GLOBEX_KEY })).status).toBe(200);
    const list = await server.api('GET', '/api/v2/services/acme-api/incidents');
    expect(list.body.data.map((i: any) => i.attributes.title)).toEqual(['Before']);
    expect(log.records.filter((r) => r.level === 'error')).toEqual([]);
  });
});
