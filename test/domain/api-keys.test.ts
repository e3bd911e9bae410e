import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import { linkWorkspace } from '../../src/domain/chat/chat-links.js';
import { systemClock } from '../../src/domain/clock.js';
import { KEY_USE_WRITE_MS, authenticateKey, createApiKey, listApiKeys, revokeApiKey, writeKeyUses } from '../../src/domain/companies/api-keys.js';
import { createDomainContext } from '../../src/domain/context.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { ACME_KEY, GLOBEX_KEY, STANDARD_CONFIG, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  // The first server made the database; it goes last.
  for (const s of servers.splice(0).reverse()) await s.stop();
});

async function server(dbPath?: string): Promise<TestServer> {
  const s = await startTestServer(dbPath ? { dbPath, config: '' } : {});
  servers.push(s);
  return s;
}

const statusWith = async (s: TestServer, key: string) => (await s.api('GET', '/api/v2/custom_monitors', { key })).status;

describe('a revoked API key', () => {
  it('is refused on the next request, by this server and by another on the same database', async () => {
    const a = await server();
    const b = await server(a.dbPath);
    const { key, id } = await createApiKey(a.ctx, 'Acme', 'deploy');
    // Used twice on each: the second answer comes from each server's memory of the key.
    for (const s of [a, b, a, b]) expect(await statusWith(s, key)).toBe(200);

    const revoked = await revokeApiKey(a.ctx, id);
    expect(revoked).toMatchObject({ alreadyRevoked: false, key: { id, company: 'Acme', label: 'deploy' } });
    expect(await statusWith(a, key)).toBe(401);
    expect(await statusWith(b, key)).toBe(401);
    // Other keys of the company go on working.
    expect(await statusWith(a, ACME_KEY)).toBe(200);
    expect(await statusWith(b, ACME_KEY)).toBe(200);
    // Nor does it link a chat workspace.
    await expect(linkWorkspace(b.ctx, 'slack', 'T-NEW', key)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('is refused by the only server at once, before the news of its own revocation could come back to it', async () => {
    const a = await server();
    const { key, id } = await createApiKey(a.ctx, 'Acme', 'deploy');
    for (let i = 0; i < 3; i++) {
      const created = await a.api('POST', '/api/v2/incidents', { key, body: { service_id: 1001, title: `Slow logins ${i}`, description: 'x' } });
      expect(created.status).toBe(201);
    }
    // No request in between: the revocation's commit and the next request follow each other at once.
    const [, status] = await Promise.all([revokeApiKey(a.ctx, id), Promise.resolve()]).then(async () => [null, await statusWith(a, key)] as const);
    expect(status).toBe(401);
  });

  it('is refused at once after writes that left keys alone, on the server that revoked it and on the other', async () => {
    const a = await server();
    const b = await server(a.dbPath);
    const { key, id } = await createApiKey(a.ctx, 'Acme', 'deploy');
    // Writes with the key on both servers: each remembers the key across commits that change no key.
    for (const s of [a, b, a, b]) {
      const created = await s.api('POST', '/api/v2/incidents', { key, body: { service_id: 1001, title: 'Slow logins', description: 'Looking.' } });
      expect(created.status).toBe(201);
    }
    await revokeApiKey(b.ctx, id);
    expect(await statusWith(b, key)).toBe(401);
    expect(await statusWith(a, key)).toBe(401);
    const refused = await a.api('POST', '/api/v2/incidents', { key, body: { service_id: 1001, title: 'Again', description: 'x' } });
    expect(refused.status).toBe(401);
    expect(await statusWith(a, ACME_KEY)).toBe(200);
  });

  it('revoked from another process (a command on the same database) is refused by every server at once', async () => {
    const a = await server();
    const b = await server(a.dbPath);
    for (const s of [a, b, a, b]) expect(await statusWith(s, ACME_KEY)).toBe(200);
    const acmeKey = (await listApiKeys(a.ctx, 'Acme'))[0]!;

    const db = openDatabase({ path: a.dbPath });
    try {
      const cli = createDomainContext({ db, clock: systemClock, publicUrl: 'http://localhost:8080' });
      await revokeApiKey(cli, acmeKey.id);
    } finally {
      await db.destroy();
    }
    expect(await statusWith(a, ACME_KEY)).toBe(401);
    expect(await statusWith(b, ACME_KEY)).toBe(401);
    expect(await statusWith(b, GLOBEX_KEY)).toBe(200);
  });

  it('stays revoked when the config that names it is applied again', async () => {
    const a = await server();
    const acmeKey = (await listApiKeys(a.ctx, 'Acme'))[0]!;
    await revokeApiKey(a.ctx, acmeKey.id);
    await applySetup(a.ctx, parseConfig('test.yml', STANDARD_CONFIG).config.setup);
    expect(await statusWith(a, ACME_KEY)).toBe(401);
    const again = await revokeApiKey(a.ctx, acmeKey.id);
    expect(again.alreadyRevoked).toBe(true);
    expect(again.key.revokedAt).toEqual(new Date(T0));
  });

  it('an unknown key id is not_found', async () => {
    const a = await server();
    await expect(revokeApiKey(a.ctx, 999_999)).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('999999') });
  });
});

describe('API keys of a company', () => {
  it('are listed with label, prefix, creation, last use and revocation; the plaintext is never kept', async () => {
    const a = await server();
    a.clock.advance(1_000);
    const issued = await createApiKey(a.ctx, 'Acme', 'deploy');
    expect(issued.key).toMatch(/^sb_\S{20,}$/);
    const keys = await listApiKeys(a.ctx, 'Acme');
    expect(keys).toEqual([
      { id: expect.any(Number), company: 'Acme', label: 'config', prefix: null, createdAt: new Date(T0), lastUsedAt: null, revokedAt: null },
      {
        id: issued.id,
        company: 'Acme',
        label: 'deploy',
        prefix: issued.key.slice(0, 8),
        createdAt: new Date(Date.parse(T0) + 1_000),
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);
    const stored = await a.ctx.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(issued.key);
    await expect(listApiKeys(a.ctx, 'Nope')).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('Acme') });
  });

  it('refuse a blank or overlong label', async () => {
    const a = await server();
    await expect(createApiKey(a.ctx, 'Acme', '  ')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(createApiKey(a.ctx, 'Acme', 'x'.repeat(65))).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await listApiKeys(a.ctx, 'Acme')).toHaveLength(1);
  });

  it('record their last use in memory: requests write nothing; one transaction writes every key used meanwhile', async () => {
    const a = await server();
    let commits = 0;
    a.ctx.afterCommit.add(() => commits++);
    const lastUsed = async (company: string) => (await listApiKeys(a.ctx, company))[0]!.lastUsedAt?.getTime() ?? null;

    for (let i = 0; i < 20; i++) {
      expect(await statusWith(a, ACME_KEY)).toBe(200);
      expect(await statusWith(a, GLOBEX_KEY)).toBe(200);
    }
    a.clock.advance(30_000);
    expect(await statusWith(a, GLOBEX_KEY)).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect(commits).toBe(0);
    expect(await lastUsed('Acme')).toBeNull();

    await writeKeyUses(a.ctx);
    expect(commits).toBe(1);
    expect(await lastUsed('Acme')).toBe(Date.parse(T0));
    expect(await lastUsed('Globex')).toBe(Date.parse(T0) + 30_000);
    expect(await lastUsed('Initech')).toBeNull();
    // Nothing used since: nothing to write.
    await writeKeyUses(a.ctx);
    expect(commits).toBe(1);
  });

  it('write them a minute after the first use not yet written, and not before', async () => {
    const a = await server();
    let commits = 0;
    a.ctx.afterCommit.add(() => commits++);
    const lastUsed = async (company: string) => (await listApiKeys(a.ctx, company))[0]!.lastUsedAt?.getTime() ?? null;
    // The minute's timers are caught, to end the minute at once; any other timer runs as usual.
    const minutes: (() => void)[] = [];
    const realSetTimeout = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number, ...rest: unknown[]) => {
      if (ms !== KEY_USE_WRITE_MS) return realSetTimeout(fn, ms, ...rest);
      minutes.push(fn);
      return { unref: () => undefined };
    }) as unknown as typeof setTimeout);
    try {
      // What the HTTP server calls for each request.
      await authenticateKey(a.ctx, ACME_KEY);
      a.clock.advance(30_000);
      await authenticateKey(a.ctx, GLOBEX_KEY);
      await authenticateKey(a.ctx, ACME_KEY);
    } finally {
      spy.mockRestore();
    }
    expect(minutes).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(commits).toBe(0);

    minutes[0]!();
    await writeKeyUses(a.ctx);
    expect(commits).toBe(1);
    expect(await lastUsed('Acme')).toBe(Date.parse(T0) + 30_000);
    expect(await lastUsed('Globex')).toBe(Date.parse(T0) + 30_000);
  });
});
