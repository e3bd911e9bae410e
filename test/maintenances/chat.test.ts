import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatHarness } from '../helpers/chat.js';
import { PLATFORMS } from '../helpers/platforms.js';
import { FAST_DELIVERY, GLOBEX_KEY } from '../helpers/test-server.js';

const HOUR = 3_600_000;

/** `/statusbot maintenance` and the maintenance messages in channels, the same on every platform. */
describe.each(PLATFORMS)('$platform', ({ start }) => {
  let h: ChatHarness;
  beforeAll(async () => {
    h = await start({
      delivery: FAST_DELIVERY,
      channels: [
        { channel: 'api-status', services: ['acme-api'] },
        { channel: 'web-status', services: ['acme-web'] },
        { channel: 'incidents', incidents: true },
      ],
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function schedule(body: Record<string, unknown>, key?: string) {
    const res = await h.s.api('POST', '/api/v2/maintenances', { key, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as string;
  }

  it('lists upcoming and current maintenance, soonest first, and says so when there is none', async () => {
    const none = await h.ask({ verb: 'maintenance' });
    expect(none.ephemeral).toBe(true);
    expect(none.text).toContain('No maintenance is scheduled or in progress.');

    const now = Date.parse(h.s.clock.now().toISOString());
    const from = (hours: number) => new Date(now + hours * HOUR).toISOString();
    await schedule({ title: 'Disk swap', service_ids: [1002], starts_at: from(48), ends_at: from(49) });
    const current = await schedule({ title: 'Database upgrade', service_ids: [1001, 1002], starts_at: from(-1), ends_at: from(1) });
    await schedule({ title: 'Old work', service_ids: [1001], starts_at: from(-3), ends_at: from(-2) });
    await schedule({ title: 'Globex work', service_ids: [2001], starts_at: from(1), ends_at: from(2) }, GLOBEX_KEY);

    const answer = await h.ask({ verb: 'maintenance' });
    expect(answer.ephemeral).toBe(true);
    const text = answer.text;
    expect(text).toContain('Database upgrade');
    expect(text).toContain('Disk swap');
    expect(text.indexOf('Database upgrade')).toBeLessThan(text.indexOf('Disk swap'));
    expect(text).toMatch(/Database upgrade.*In progress until/s);
    expect(text).toMatch(/Disk swap.*Scheduled/s);
    expect(text).toContain('Acme API, Acme Web');
    expect(text).toContain(`http://status.test/maintenances/${current}`);
    expect(text).not.toContain('Old work');
    expect(text).not.toContain('Globex work');
  });

  it('tells the channels following its services of each move, once per channel, and no other channel', async () => {
    await h.settle();
    const shownIn = (channel: string) => h.shown(channel).length;
    const counts = { api: shownIn('api-status'), web: shownIn('web-status'), incidents: shownIn('incidents') };
    const now = Date.parse(h.s.clock.now().toISOString());
    const id = await schedule({
      title: 'Network change',
      description: 'Switches are replaced.',
      service_ids: [1001, 1002],
      starts_at: new Date(now + 24 * HOUR).toISOString(),
      ends_at: new Date(now + 25 * HOUR).toISOString(),
    });
    const res = await h.s.api('PATCH', `/api/v2/maintenances/${id}`, { body: { status: 'cancelled', description: 'Postponed.' } });
    expect(res.status, res.text).toBe(200);
    await h.settle();

    for (const channel of ['api-status', 'web-status']) {
      const added = h.shown(channel).slice(channel === 'api-status' ? counts.api : counts.web);
      expect(added.filter((m) => m.text.includes('Network change')).map((m) => m.headline)).toHaveLength(2);
      const [scheduled, cancelled] = added.filter((m) => m.text.includes('Network change'));
      expect(scheduled!.text).toContain('Maintenance scheduled');
      expect(scheduled!.text).toContain('Switches are replaced.');
      expect(cancelled!.text).toContain('Maintenance cancelled');
      expect(cancelled!.text).toContain('Postponed.');
    }
    expect(
      h
        .shown('incidents')
        .slice(counts.incidents)
        .filter((m) => m.text.includes('Network change')),
    ).toEqual([]);
  });
});
