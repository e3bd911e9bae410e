import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueDueDigests } from '../../src/domain/read/digests/board-digest.js';
import type { ChatHarness } from '../helpers/chat.js';
import { PLATFORMS } from '../helpers/platforms.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';

/** The one delivery state machine, the same scenario on every platform, through the outbox worker and the fakes. */
describe.each(PLATFORMS)('$platform', ({ platform, start }) => {
  let h: ChatHarness;
  beforeAll(async () => {
    h = await start({
      delivery: FAST_DELIVERY,
      channels: [
        { channel: 'incidents', incidents: true },
        { channel: 'status', services: ['acme-web'] },
        { channel: 'board', boards: '[{ board: vendors, schedule: "* * * * *", edit_in_place: true }]' },
        { channel: 'digests', boards: '[{ board: vendors, schedule: "* * * * *" }]' },
        { channel: 'reports', services: ['other-cloud'] },
      ],
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function open(title: string, description = 'First look', serviceId = 1001) {
    const res = await h.s.api('POST', '/api/v2/incidents', { body: { service_id: serviceId, title, description } });
    expect(res.status, res.text).toBe(201);
    return Number(res.body.data.id);
  }
  const patch = async (id: number, body: Record<string, unknown>) => {
    const res = await h.s.api('PATCH', `/api/v2/incidents/${id}`, { body });
    expect(res.status, res.text).toBe(200);
  };
  const messageOf = (channel: string, id: number) => h.shown(channel).filter((m) => m.text.includes(`#${id} `) || m.text.includes(`#${id}:`));

  it('shows an incident in one message, edited in place, with every update (the opening one too) as a reply, in order', async () => {
    const id = await open('Checkout down', 'Some users cannot pay');
    await h.settle();
    await patch(id, { status: 'major', description: 'Found it', resolution_stage: 'identified' });
    await patch(id, { title: 'Checkout down (EU)' });
    await patch(id, { description: 'All good', resolution_stage: 'resolved' });
    await h.settle();

    const [message, ...others] = messageOf('incidents', id);
    expect(others).toEqual([]);
    expect(message!.edits).toBe(3);
    expect(message!.text).toContain('Checkout down (EU)');
    expect(message!.text).toContain('Resolved');
    expect(message!.buttons).toEqual(['Post update']);
    expect(message!.replies).toHaveLength(3);
    for (const [reply, stage, text] of [
      [message!.replies[0], 'Investigating', 'Some users cannot pay'],
      [message!.replies[1], 'Identified', 'Found it'],
      [message!.replies[2], 'Resolved', 'All good'],
    ] as const) {
      expect(reply).toContain(stage);
      expect(reply).toContain(text);
    }

    const remembered = await h.s.ctx.db.selectFrom('chat_messages').selectAll().where('subject', '=', `incident:${id}`).execute();
    expect(remembered).toEqual([expect.objectContaining({ platform, channel_id: h.channelId('incidents'), message_id: message!.id })]);
  });

  it('records the same confirmed steps on every platform: the message, then the reply', async () => {
    const rows = await h.s.ctx.db
      .selectFrom('outbox')
      .select(['event', 'progress'])
      .where('stream', '=', `${platform}:${h.workspaceId('acme')}:${h.channelId('incidents')}`)
      .orderBy('id')
      .execute();
    const steps = rows.map((r) => [r.event, Object.keys(JSON.parse(r.progress ?? '{}')).sort()]);
    expect(steps.slice(0, 2)).toEqual([
      ['incident.created', ['message', 'reply']],
      ['incident.updated', ['message', 'reply']],
    ]);
    // A change without an update edits the message and posts no reply.
    expect(steps[2]).toEqual(['incident.updated', ['message']]);
  });

  it('keeps one message per incident when incidents interleave', async () => {
    const a = await open('Interleaved A', 'a0');
    const b = await open('Interleaved B', 'b0');
    await patch(a, { description: 'a1', resolution_stage: 'identified' });
    await patch(b, { description: 'b1', resolution_stage: 'monitoring' });
    await h.settle();
    const [ma] = messageOf('incidents', a);
    const [mb] = messageOf('incidents', b);
    expect(ma!.replies.map((r) => /a\d/.exec(r)?.[0])).toEqual(['a0', 'a1']);
    expect(mb!.replies.map((r) => /b\d/.exec(r)?.[0])).toEqual(['b0', 'b1']);
  });

  it('posts a new message when the old one was deleted in the platform, and replies and edits go to that one', async () => {
    const id = await open('Search slow');
    await h.settle();
    const [first] = messageOf('incidents', id);
    h.deleteMessage('incidents', first!.id);
    await patch(id, { description: 'Reindexing', resolution_stage: 'monitoring' });
    await patch(id, { status: 'major' });
    await h.settle();
    const [second, ...rest] = messageOf('incidents', id);
    expect(rest).toEqual([]);
    expect(second!.id).not.toBe(first!.id);
    expect(second!.edits).toBe(1);
    expect(second!.replies).toHaveLength(1);
    expect(second!.replies[0]).toContain('Reindexing');
  });

  it('marks a deleted incident where it was shown, drops its buttons, and tells no channel that never showed it', async () => {
    const id = await open('Mistake');
    await h.settle();
    await h.ask({ verb: 'subscribe', target: 'incidents' }, { channel: 'late' });
    expect((await h.s.api('DELETE', `/api/v2/incidents/${id}`)).status).toBe(204);
    await h.settle();
    const [message] = messageOf('incidents', id);
    expect(message!.text).toMatch(/Deleted|deleted/);
    expect(message!.buttons).toEqual([]);
    expect(message!.replies).toHaveLength(1);
    expect(h.shown('late')).toEqual([]);
  });

  it('a status change of a followed service is one new message, and not an edit', async () => {
    const before = h.shown('status').length;
    const id = await open('Status mover', 'Slow', 1002);
    await patch(id, { description: 'done', resolution_stage: 'resolved' });
    await h.settle();
    const posted = h.shown('status').slice(before);
    expect(posted).toHaveLength(2);
    expect(posted[0]!.text).toContain('Minor issues');
    expect(posted[0]!.text).toContain('Status mover');
    expect(posted[1]!.text).toContain('Operational');
    expect(posted.map((m) => m.edits)).toEqual([0, 0]);
  });

  it('posts a digest with edit_in_place once and then edits it; without, posts each time; turned on later, it edits the latest', async () => {
    expect(await queueDueDigests(h.s.ctx, new Date('2026-11-22T10:05:00Z'))).toBe(2);
    await h.settle();
    expect(await queueDueDigests(h.s.ctx, new Date('2026-11-22T10:06:00Z'))).toBe(2);
    await h.settle();
    const inPlace = h.shown('board');
    expect(inPlace).toHaveLength(1);
    expect(inPlace[0]!.edits).toBe(1);
    expect(inPlace[0]!.text).toContain('Vendors');
    expect(inPlace[0]!.text).toContain('Acme Cloud');
    const posted = h.shown('digests');
    expect(posted.map((m) => m.edits)).toEqual([0, 0]);

    await h.ask({ verb: 'subscribe', target: 'board', name: 'vendors', settings: { schedule: '* * * * *', edit_in_place: true } }, { channel: 'digests' });
    expect(await queueDueDigests(h.s.ctx, new Date('2026-11-22T10:07:00Z'))).toBe(2);
    await h.settle();
    const after = h.shown('digests');
    expect(after).toHaveLength(2);
    expect(after.map((m) => m.edits)).toEqual([0, 1]);
  });

  // Last: it moves the clock an hour on.
  it('announces an incident from user reports where the service is followed, unconfirmed and without buttons, and its end', async () => {
    for (const member of ['admin', 'member', 'channel-manager'] as const) await h.ask({ verb: 'report', service: 'other-cloud' }, { member });
    await h.settle();
    const [message, ...others] = h.shown('reports');
    expect(others).toEqual([]);
    expect(message!.text).toContain('Users report problems with Other Cloud');
    expect(message!.text).toContain('Unconfirmed: reported by users, not by the provider');
    expect(message!.text).toContain('3 people reported problems in the last 30 minutes.');
    expect(message!.buttons).toEqual([]);
    expect(message!.replies).toHaveLength(1);

    h.s.clock.advance(61 * 60_000);
    await h.s.scheduler.runOnce('user-reports');
    await h.settle();
    const [ended, ...more] = h.shown('reports');
    expect(more).toEqual([]);
    expect(ended!.edits).toBe(1);
    expect(ended!.text).toContain('Resolved');
    expect(ended!.replies).toHaveLength(2);
    expect(ended!.replies[1]).toContain('No new reports for 60 minutes.');
  });
});
