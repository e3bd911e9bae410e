import { afterEach, describe, expect, it } from 'vitest';
import { switchedMetrics } from '../../bench/observing.js';
import type { ObservingSwitch } from '../../bench/observing.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

describe("the benchmark's observing switch", () => {
  it('counts requests in the metrics only while on; audit rows are written either way', async () => {
    const observing: ObservingSwitch = { on: true };
    const server = await startTestServer({ metrics: (metrics) => switchedMetrics(metrics, observing) });
    s = server;
    const requestsSeen = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/^statusbot_http_request_duration_seconds_count\{route="\/api\/v2\/incidents",method="POST",status="201"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const auditRows = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('action', '=', 'incident.create')
            .where('actor', 'like', 'api_key:%')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const create = async (title: string) => {
      const res = await server.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title, description: 'Looking.' } });
      expect(res.status).toBe(201);
    };
    await create('Seen');
    expect(await requestsSeen()).toBe(1);
    observing.on = false;
    await create('Unseen');
    expect(await requestsSeen()).toBe(1);
    observing.on = true;
    await create('Seen again');
    expect(await requestsSeen()).toBe(2);
    expect(await auditRows()).toBe(3);
  });
});
