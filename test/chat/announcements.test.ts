import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueDueDigests } from '../../src/domain/read/digests/board-digest.js';
import type { ChatHarness } from '../helpers/chat.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';
import { ANNOUNCEMENT_PLATFORMS, MARKDOWN_CASES } from './announcement-platforms.js';
import type { AnnouncementDriver } from './announcement-platforms.js';

/** The one delivery state machine, the same scenario on every platform, through the outbox worker and the fakes. */
describe.each(ANNOUNCEMENT_PLATFORMS)('$platform', (row) => {
  const { platform } = row;
  let d: AnnouncementDriver;
  let h: ChatHarness;
  beforeAll(async () => {
    d = await row.start({
      delivery: FAST_DELIVERY,
      channels: [
        { channel: 'incidents', incidents: true },
        { channel: 'status', services: ['acme-web'] },
        { channel: 'board', boards: '[{ board: vendors, schedule: "* * * * *", edit_in_place: true }]' },
        { channel: 'digests', boards: '[{ board: vendors, schedule: "* * * * *" }]' },
        { channel: 'reports', services: ['other-cloud'] },
      ],
    });
    h = d.h;
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

    // What the platform's API received: the message, then per change an edit of it and per update a reply under it.
    const incidents = h.channelId('incidents');
    const sent = h.sent(incidents);
    const m = message!.id;
    expect(sent.map((c) => [c.step, c.of])).toEqual([
      ['message', null],
      ['reply', m],
      ['edit', m],
      ['reply', m],
      ['edit', m],
      ['edit', m],
      ['reply', m],
    ]);
    const opened = { state: 'minor', id, title: 'Checkout down', service: 'Acme API' } as const;
    expect(row.headlineOf(sent[0]!.body)).toBe(row.headline(opened));
    row.expectPosted(sent[0]!, opened, 'Some users cannot pay');
    expect(row.buttons(sent[0]!.body)).toEqual([
      ['Post update', row.postUpdate(id)],
      ['Resolve', row.resolve(id)],
    ]);
    expect(message!.headline).toBe(row.headline({ ...opened, state: 'resolved', title: 'Checkout down (EU)' }));
    const stored = d.stored(incidents, m);
    row.expectResolved(stored);
    expect(row.buttons(stored)).toEqual([['Post update', row.postUpdate(id)]]);
    expect(d.replies(incidents, m)).toEqual([
      row.reply('Investigating', opened, 'Some users cannot pay'),
      row.reply('Identified', opened, 'Found it'),
      row.reply('Resolved', { id, title: 'Checkout down (EU)' }, 'All good'),
    ]);
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
    expect([ma!.headline, mb!.headline]).toEqual([
      row.headline({ state: 'minor', id: a, title: 'Interleaved A', service: 'Acme API' }),
      row.headline({ state: 'minor', id: b, title: 'Interleaved B', service: 'Acme API' }),
    ]);
    // The replies went out in the order of the changes, each under its own incident's message.
    const replies = h.sent(h.channelId('incidents')).filter((c) => c.step === 'reply' && (c.of === ma!.id || c.of === mb!.id));
    expect(replies.map((c) => c.of)).toEqual([ma!.id, mb!.id, ma!.id, mb!.id]);
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
    expect(second!.headline).toBe(row.headline({ state: 'major', id, title: 'Search slow', service: 'Acme API' }));
    expect(d.replies(h.channelId('incidents'), second!.id)).toEqual([row.reply('Monitoring', { id, title: 'Search slow' }, 'Reindexing')]);
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
    expect(message!.headline).toBe(row.headline({ state: 'deleted', id, title: 'Mistake', service: 'Acme API' }));
    expect(row.controls(d.stored(h.channelId('incidents'), message!.id))).toEqual([]);
  });

  it('a status change of a followed service is one new message, and not an edit', async () => {
    const before = h.shown('status').length;
    const sentBefore = h.sent(h.channelId('status')).length;
    const id = await open('Status mover', 'Slow', 1002);
    await patch(id, { description: 'done', resolution_stage: 'resolved' });
    await h.settle();
    const posted = h.shown('status').slice(before);
    expect(posted).toHaveLength(2);
    expect(posted[0]!.text).toContain('Minor issues');
    expect(posted[0]!.text).toContain('Status mover');
    expect(posted[1]!.text).toContain('Operational');
    expect(posted.map((m) => m.edits)).toEqual([0, 0]);
    expect(posted.map((m) => m.headline)).toEqual([row.statusHeadline('Acme Web', 'Minor issues'), row.statusHeadline('Acme Web', 'Operational')]);
    expect(
      h
        .sent(h.channelId('status'))
        .slice(sentBefore)
        .map((c) => c.step),
    ).toEqual(['message', 'message']);
  });

  it.each(MARKDOWN_CASES)('an update written in Markdown reaches the platform in its own markup: $written', async (c) => {
    const title = `Queue backlog ${MARKDOWN_CASES.indexOf(c) + 1}`;
    const id = await open(title);
    await h.settle();
    await patch(id, { description: c.written, resolution_stage: 'monitoring' });
    await h.settle();
    const [message] = messageOf('incidents', id);
    const reply = d.replies(h.channelId('incidents'), message!.id).at(-1);
    expect(reply).toEqual(row.reply('Monitoring', { id, title }, row.markdown(c)));
    if (row.foreign) expect(String(reply)).not.toContain(row.foreign);
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
    expect(inPlace[0]!.headline).toBe(row.digestHeadline);
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
