import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatHarness } from '../helpers/chat.js';
import { PLATFORMS } from '../helpers/platforms.js';

/** Changes from chat are the member's who made them, in the audit trail the API shows. */
describe.each(PLATFORMS)('$platform', ({ platform, start }) => {
  let h: ChatHarness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const events = async () => (await h.s.api('GET', '/api/v2/audit_events?limit=200')).body.data.map((e: any) => e.attributes);

  it('an incident resolved from chat names the workspace and the member', async () => {
    const created = await h.s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Queue backlog' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const answer = await h.ask({ verb: 'incident resolve', id: Number(id), message: 'Drained' });
    expect(answer.text).toContain('Resolved incident');

    const resolved = (await events()).find((e: any) => e.action === 'incident.update' && e.target.id === id);
    expect(resolved).toMatchObject({
      changes: { resolved: { from: false, to: true }, update: { to: { stage: 'resolved', description: 'Drained' } } },
    });
    expect(resolved.actor).toMatch(new RegExp(`^${platform}:${h.workspaceId('acme')}/[\\w-]+$`));
    expect(resolved.request_id).toEqual(expect.any(String));
  });

  it('subscribing and unsubscribing a channel are recorded; a refused subscribe is not', async () => {
    const before = (await events()).length;
    const refused = await h.ask({ verb: 'subscribe', target: 'incidents' }, { member: 'member' });
    expect(refused.ephemeral).toBe(true);
    expect((await events()).length).toBe(before);

    await h.ask({ verb: 'subscribe', target: 'incidents' }, { member: 'admin', channel: 'audit' });
    await h.ask({ verb: 'unsubscribe', target: 'incidents' }, { member: 'admin', channel: 'audit' });
    const [unsubscribed, subscribed] = await events();
    expect(subscribed).toMatchObject({ action: 'channel_subscription.subscribe', target: { type: 'channel_subscription' } });
    expect(unsubscribed).toMatchObject({ action: 'channel_subscription.unsubscribe', changes: { target: { from: 'incidents' } } });
    expect(subscribed.actor).toMatch(new RegExp(`^${platform}:${h.workspaceId('acme')}/`));
  });
});
