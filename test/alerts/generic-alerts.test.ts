import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ALERTS_CONFIG } from './alert-fixtures.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: ALERTS_CONFIG });
});
afterAll(async () => {
  await s.stop();
});
beforeEach(() => {
  s.clock.set(T0);
});

const PATH = '/api/v2/alerts';

async function send(body: Record<string, unknown>, key?: string): Promise<string> {
  const res = await s.api('POST', PATH, { body, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(202);
  expect(res.body.data.type).toBe('alert_batch');
  expect(res.body.data.attributes.incidents).toHaveLength(1);
  return res.body.data.attributes.incidents[0];
}

const incident = async (id: string) => (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;
const trigger = (dedup_key: string, fields: Record<string, unknown> = {}) => ({
  dedup_key,
  action: 'trigger',
  service_id: 1001,
  title: 'Checkout failing',
  status: 'major',
  description: 'Probe of /checkout fails',
  ...fields,
});

describe('POST /api/v2/alerts', () => {
  it('a trigger opens an incident with its title, severity and description', async () => {
    const id = await send(trigger('checkout-1'));
    expect(await incident(id)).toMatchObject({
      title: 'Checkout failing',
      status: 'major',
      description: 'Probe of /checkout fails',
      service_id: 1001,
      resolved: false,
      updates: [{ status: 'investigating', created_at: T0, description: 'Probe of /checkout fails' }],
    });
  });

  it('the same key while open updates its incident; the same fields again change nothing', async () => {
    const id = await send(trigger('checkout-2'));
    s.clock.advance(60_000);
    expect(await send(trigger('checkout-2'))).toBe(id);
    expect((await incident(id)).updates).toHaveLength(1);
    expect(await send(trigger('checkout-2', { status: 'minor', description: 'Half the probes fail' }))).toBe(id);
    const attributes = await incident(id);
    expect(attributes).toMatchObject({ status: 'minor', description: 'Half the probes fail', updated_at: '2026-11-22T10:03:00.000Z' });
    expect(attributes.updates).toHaveLength(2);
  });

  it('resolve resolves the open incident of the key; a trigger after that opens a new one', async () => {
    const id = await send(trigger('checkout-3'));
    s.clock.advance(60_000);
    expect(await send({ dedup_key: 'checkout-3', action: 'resolve', description: 'Checkout recovered' })).toBe(id);
    const attributes = await incident(id);
    expect(attributes.resolved).toBe(true);
    expect(attributes.updates.at(-1)).toEqual({ status: 'resolved', created_at: '2026-11-22T10:03:00.000Z', description: 'Checkout recovered' });
    // Resolving again changes nothing.
    expect(await send({ dedup_key: 'checkout-3', action: 'resolve' })).toBe(id);
    expect((await incident(id)).updates).toHaveLength(2);
    const next = await send(trigger('checkout-3'));
    expect(next).not.toBe(id);
    expect((await incident(next)).resolved).toBe(false);
    expect((await incident(id)).resolved).toBe(true);
  });

  it('a resolve of an unknown key is a 422 naming dedup_key', async () => {
    const res = await s.api('POST', PATH, { body: { dedup_key: 'never-triggered', action: 'resolve' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      {
        status: 422,
        title: 'Unprocessable entity',
        detail: 'dedup_key "never-triggered" names no alert of yours to resolve',
        source: { pointer: '/dedup_key' },
      },
    ]);
  });

  it('keys are per company: another company resolving the same key finds nothing', async () => {
    await send(trigger('shared-key'));
    expect((await s.api('POST', PATH, { key: GLOBEX_KEY, body: { dedup_key: 'shared-key', action: 'resolve' } })).status).toBe(422);
    const globex = await send({ ...trigger('shared-key'), service_id: 2001 }, GLOBEX_KEY);
    expect((await s.api('GET', `/api/v2/incidents/${globex}`, { key: GLOBEX_KEY })).body.data.attributes.service_id).toBe(2001);
  });

  it('bad input is a 422 naming the field, and changes nothing', async () => {
    const count = async () =>
      Number(
        (
          await s.ctx.db
            .selectFrom('incidents')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...trigger('bad-1'), action: 'acknowledge' }, 'action must be one of trigger, resolve'],
      [{ ...trigger('bad-2'), title: ' ' }, 'title must not be blank'],
      [{ ...trigger('bad-3'), status: 'critical' }, 'status must be one of minor, major'],
      [{ ...trigger('bad-4'), service_id: 2001 }, 'service_id must be the id of a custom service of your company'],
      [{ action: 'trigger', service_id: 1001, title: 'No key' }, 'dedup_key is required'],
    ];
    for (const [body, detail] of cases) {
      const res = await s.api('POST', PATH, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors.map((e: any) => e.detail)).toContain(detail);
    }
    expect(await count()).toBe(before);
  });

  it('concurrent identical triggers open one incident', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => send(trigger('stampede'))));
    expect(new Set(ids).size).toBe(1);
    expect((await incident(ids[0]!)).updates).toHaveLength(1);
  });
});
