import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const get = async (path: string) => {
  const res = await fetch(`${s.url}${path}`);
  return { status: res.status, body: await res.json() };
};

describe('GET /readyz', () => {
  it("is 200 once started on a database with this version's schema, without any Authorization", async () => {
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('is 503 naming the migrations not applied yet, while /healthz stays 200', async () => {
    const names = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(s.ctx.db)).rows.map((r) => r.name);
    const last = names.at(-1)!;
    await sql`delete from kysely_migration where name = ${last}`.execute(s.ctx.db);
    try {
      expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'not ready', reason: `1 migration not applied yet: ${last}` } });
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last}, ${new Date().toISOString()})`.execute(s.ctx.db);
    }
    expect((await get('/readyz')).status).toBe(200);
  });

  it('is 503 on a database a newer statusbot migrated', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', ${new Date().toISOString()})`.execute(s.ctx.db);
    try {
      expect(await get('/readyz')).toEqual({
        status: 503,
        body: { status: 'not ready', reason: 'the database was migrated by a newer statusbot (9999_from_the_future)' },
      });
    } finally {
      await sql`delete from kysely_migration where name = '9999_from_the_future'`.execute(s.ctx.db);
    }
  });

  it('refuses another method with 405 and Allow: GET', async () => {
    const res = await fetch(`${s.url}/readyz`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});
