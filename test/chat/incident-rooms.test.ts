import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentLead } from '../../src/domain/chat/incident-lead.js';
import { incidentNotes } from '../../src/domain/chat/incident-notes.js';
import { incidentRoom } from '../../src/domain/chat/incident-room.js';
import type { ChatHarness } from '../helpers/chat.js';
import { PLATFORMS } from '../helpers/platforms.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

/** Leads, incident rooms and notes, the same scenario on every platform, through the real clients and the fakes. */
describe.each(PLATFORMS)('$platform', ({ platform, start }) => {
  let h: ChatHarness;
  beforeAll(async () => {
    h = await start({ delivery: FAST_DELIVERY, incidentChannels: true, gateway: true, channels: [{ channel: 'incidents', incidents: true }] });
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function open(title: string, status: 'minor' | 'major' = 'minor') {
    const res = await h.s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title, description: 'First look', status } });
    expect(res.status, res.text).toBe(201);
    return Number(res.body.data.id);
  }
  const messagesOf = (shown: ReturnType<ChatHarness['shownIn']>, id: number) => shown.filter((m) => m.text.includes(`#${id} `));
  const mention = (member: 'admin' | 'member') => `<@${h.memberId(member)}>`;
  const roomOf = (id: number) => h.rooms().filter((r) => r.name.startsWith(`inc-${id}-`));

  describe('/incident lead', () => {
    it("names the lead, shown in the incident's message, edited in place", async () => {
      const id = await open('Search is slow');
      await h.settle();
      const answer = await h.ask({ verb: 'incident lead', id, lead: 'member' });
      expect(answer.ephemeral).toBe(true);
      expect(answer.text).toContain(`${mention('member')} now leads incident ${h.bold(`#${id}`)}`);
      await h.settle();
      const [message, ...others] = messagesOf(h.shown('incidents'), id);
      expect(others).toEqual([]);
      expect(message!.edits).toBe(1);
      expect(message!.text).toContain(mention('member'));
      expect(await incidentLead(h.s.ctx.db, id)).toMatchObject({ platform, userId: h.memberId('member') });
      expect(roomOf(id)).toEqual([]);
    });

    it('refuses an incident that does not exist, and asks which incident outside a room', async () => {
      const other = await h.ask({ verb: 'incident lead', id: 999_999, lead: 'member' });
      expect(other.text).toContain('The incident does not exist');
      const none = await h.ask({ verb: 'incident lead', lead: 'member' });
      expect(none.text).toMatch(/^Usage: /);
      expect(none.text).toContain('lead');
    });
  });

  describe('incident rooms', () => {
    let id: number;
    let room: { id: string; name: string; members: string[] };

    it('opens a room for a new major incident declared in chat, named after it, with the declarer invited', async () => {
      const form = (await h.ask({ verb: 'incident new', service: 'acme-api' })).form!;
      const done = await h.submit(form, { title: 'Checkout: payments FAIL (EU)!', severity: 'major', description: 'Card payments fail' });
      id = Number(/#(\d+)/.exec(done.text)![1]);
      await h.settle();
      const rooms = roomOf(id);
      expect(rooms.map((r) => r.name)).toEqual([`inc-${id}-checkout-payments-fail-eu`]);
      room = rooms[0]!;
      expect(room.members).toEqual([h.memberId('admin')]);
      expect(await incidentRoom(h.s.ctx.db, id)).toMatchObject({ state: 'open', channelId: room.id, platform });
      const [message, ...others] = messagesOf(h.shownIn(room.id), id);
      expect(others).toEqual([]);
      expect(message!.text).toContain('Checkout: payments FAIL (EU)!');
    });

    it('invites the lead named later, and shows them in the room too', async () => {
      const answer = await h.ask({ verb: 'incident lead', lead: 'member' }, { channelId: room.id });
      expect(answer.text).toContain(`now leads incident ${h.bold(`#${id}`)}`);
      await h.settle();
      expect(roomOf(id)[0]!.members).toEqual([h.memberId('admin'), h.memberId('member')]);
      expect(messagesOf(h.shownIn(room.id), id)[0]!.text).toContain(mention('member'));
    });

    it('posts each update in the room once, under its message', async () => {
      const res = await h.s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Found the bad deploy', resolution_stage: 'identified' } });
      expect(res.status, res.text).toBe(200);
      await h.settle();
      const [message, ...others] = messagesOf(h.shownIn(room.id), id);
      expect(others).toEqual([]);
      expect(message!.replies.filter((r) => r.includes('Found the bad deploy'))).toHaveLength(1);
      // The channel following the company's incidents hears of it as before.
      expect(messagesOf(h.shown('incidents'), id)[0]!.replies.filter((r) => r.includes('Found the bad deploy'))).toHaveLength(1);
    });

    it('adds a message pinned with 📌 and an /incident note to the timeline, with author and time', async () => {
      const pinned = h.say(room.id, 'Rolled back to v41', 'member');
      await h.pin(room.id, pinned);
      await waitUntil(async () => (await incidentNotes(h.s.ctx.db, id)).length === 1, { what: 'the pinned message noted' });
      const answer = await h.ask({ verb: 'incident note', text: 'Customers told on the status page' }, { channelId: room.id });
      expect(answer.text).toBe(`Noted on the timeline of incident ${h.bold(`#${id}`)}.`);
      // Pinned again: still one note of that message.
      await h.pin(room.id, pinned, 'admin');
      const note = await h.ask({ verb: 'incident note', text: 'Monitoring error rates' }, { channelId: room.id });
      expect(note.text).toContain('Noted');
      const notes = await incidentNotes(h.s.ctx.db, id);
      expect(notes.map((n) => [n.text, n.authorId, n.messageId])).toEqual([
        ['Rolled back to v41', h.memberId('member'), pinned],
        ['Customers told on the status page', h.memberId('admin'), null],
        ['Monitoring error rates', h.memberId('admin'), null],
      ]);
      expect(notes.every((n) => n.createdAt instanceof Date)).toBe(true);

      // Each change is in the audit trail, by whoever made it.
      const audit = await h.s.ctx.db
        .selectFrom('audit_events')
        .select(['action', 'actor'])
        .where('target_type', '=', 'incident')
        .where('target_id', '=', String(id))
        .where('action', 'in', ['incident.room', 'incident.lead', 'incident.note'])
        .orderBy('id')
        .execute();
      const by = (member: 'admin') => `${platform}:${h.workspaceId('acme')}/${h.memberId(member)}`;
      expect(audit).toEqual([
        { action: 'incident.room', actor: by('admin') },
        { action: 'incident.lead', actor: by('admin') },
        // Who pinned the message acts; who wrote it is the note's author.
        { action: 'incident.note', actor: by('admin') },
        { action: 'incident.note', actor: by('admin') },
        { action: 'incident.note', actor: by('admin') },
      ]);
    });

    it('refuses a note outside an incident room', async () => {
      const answer = await h.ask({ verb: 'incident note', text: 'Lost' });
      expect(answer.text).toContain("notes are taken in an incident's room");
    });

    it('posts the summary in the room on resolving, and archives nothing', async () => {
      await h.ask({ verb: 'incident resolve', id, message: 'Payments work again' });
      await h.settle();
      const shown = h.shownIn(room.id);
      const summary = shown.at(-1)!;
      expect(summary.text).toContain(`Incident #${id} resolved`);
      expect(summary.text).toContain('Checkout: payments FAIL (EU)!');
      expect(summary.text).toMatch(/Duration: \d+ min/);
      expect(summary.text).toContain(`Lead: ${mention('member')}`);
      expect(summary.text).toContain('Updates: 3 · Notes: 3');
      expect(shown.filter((m) => m.text.includes(`Incident #${id} resolved`))).toHaveLength(1);
      expect(await incidentRoom(h.s.ctx.db, id)).toMatchObject({ state: 'open' });

      // The postmortem names the lead and has the notes on its timeline, each once.
      const postmortem = await h.s.api('GET', `/api/v2/incidents/${id}/postmortem`);
      expect(postmortem.status).toBe(200);
      const text = String(postmortem.text);
      const who = (member: 'admin' | 'member') => `${platform === 'slack' ? 'Slack' : 'Discord'} user ${h.memberId(member)}`;
      expect(text).toContain(`- **Lead:** ${who('member')}`);
      for (const [author, note] of [
        ['member', 'Rolled back to v41'],
        ['admin', 'Customers told on the status page'],
        ['admin', 'Monitoring error rates'],
      ] as const) {
        expect(text.split(`Note by ${who(author)}: ${note}`)).toHaveLength(2);
      }
      expect(text).toContain(`Lead named by ${platform}:`);
    });

    it('opens no room for a new minor incident, and one on /incident room, inviting who asked', async () => {
      const minor = await open('Slow exports');
      await h.settle();
      expect(roomOf(minor)).toEqual([]);
      const answer = await h.ask({ verb: 'incident room', id: minor }, { member: 'channel-manager' });
      expect(answer.text).toContain(`#inc-${minor}-slow-exports`);
      await h.settle();
      expect(roomOf(minor).map((r) => [r.name, r.members])).toEqual([[`inc-${minor}-slow-exports`, [h.memberId('channel-manager')]]]);
      const again = await h.ask({ verb: 'incident room', id: minor });
      expect(again.text).toContain(`has its room: <#${roomOf(minor)[0]!.id}>`);
      await h.settle();
      expect(roomOf(minor)).toHaveLength(1);
    });

    it('takes the lead as an option of /incident new and update: shown, and invited into the room', async () => {
      const form = (await h.ask({ verb: 'incident new', service: 'acme-api', lead: 'member' })).form!;
      const done = await h.submit(form, { title: 'Queue backlog', severity: 'major' });
      const major = Number(/#(\d+)/.exec(done.text)![1]);
      await h.settle();
      expect(await incidentLead(h.s.ctx.db, major)).toMatchObject({ userId: h.memberId('member') });
      const [opened] = roomOf(major);
      expect(opened!.members).toEqual([h.memberId('admin'), h.memberId('member')]);
      expect(messagesOf(h.shownIn(opened!.id), major)[0]!.text).toContain(mention('member'));
      const update = await h.ask({ verb: 'incident update', id: major, lead: 'admin' });
      expect(update.form?.kind).toBe('update');
      expect(await incidentLead(h.s.ctx.db, major)).toMatchObject({ userId: h.memberId('admin') });
    });

    it('opens a new major incident from the API in the linked workspace', async () => {
      const major = await open('Login outage', 'major');
      await h.settle();
      expect(roomOf(major).map((r) => r.name)).toEqual([`inc-${major}-login-outage`]);
    });

    it('opens a room when an incident is raised to major, once however often it is raised', async () => {
      const raised = await open('Disk pressure');
      await h.settle();
      expect(roomOf(raised)).toEqual([]);
      for (const status of ['major', 'minor', 'major'] as const) {
        const res = await h.s.api('PATCH', `/api/v2/incidents/${raised}`, { body: { status } });
        expect(res.status, res.text).toBe(200);
        await h.settle();
      }
      const [opened, ...others] = roomOf(raised);
      expect(others).toEqual([]);
      expect(opened!.name).toBe(`inc-${raised}-disk-pressure`);
      expect(await incidentRoom(h.s.ctx.db, raised)).toMatchObject({ state: 'open', channelId: opened!.id, attempt: 1 });
      expect(messagesOf(h.shownIn(opened!.id), raised)).toHaveLength(1);
    });

    it('opens the channel it already made when asked again after the opening was given up', async () => {
      const minor = await open('Stuck invites');
      // Every try invites in vain until the opening is given up (dead-lettered), its channel already made.
      h.failNextInvite(100);
      await h.ask({ verb: 'incident room', id: minor });
      const opening = h.s.ctx.db.selectFrom('outbox').select('state').where('event', '=', 'incident.room').where('stream', 'like', `%:room-${minor}`);
      await waitUntil(async () => (await opening.execute()).some((r) => r.state === 'dead'), { what: 'the opening given up' });
      h.heal();
      const [made] = roomOf(minor);
      expect(made?.members).toEqual([]);
      expect(await incidentRoom(h.s.ctx.db, minor)).toMatchObject({ state: 'opening', channelId: null });
      // Asked again by another member, who is invited too.
      const answer = await h.ask({ verb: 'incident room', id: minor }, { member: 'channel-manager' });
      expect(answer.text).toContain(`#inc-${minor}-stuck-invites`);
      await h.settle();
      expect(roomOf(minor).map((r) => [r.id, r.name, r.members])).toEqual([
        [made!.id, `inc-${minor}-stuck-invites`, [h.memberId('admin'), h.memberId('channel-manager')]],
      ]);
      expect(await incidentRoom(h.s.ctx.db, minor)).toMatchObject({ state: 'open', channelId: made!.id, attempt: 1 });
      expect(messagesOf(h.shownIn(made!.id), minor)).toHaveLength(1);
    });

    it('invites again after a failed invitation, into the same channel', async () => {
      const minor = await open('Flaky webhooks');
      h.failNextInvite();
      await h.ask({ verb: 'incident room', id: minor });
      await h.settle();
      expect(roomOf(minor).map((r) => [r.name, r.members])).toEqual([[`inc-${minor}-flaky-webhooks`, [h.memberId('admin')]]]);
      expect(await incidentRoom(h.s.ctx.db, minor)).toMatchObject({ state: 'open', channelId: roomOf(minor)[0]!.id });
    });

    it('opens the room all the same when the platform refuses an invitation for good', async () => {
      const minor = await open('Invite refused');
      h.refuseNextInvite();
      await h.ask({ verb: 'incident room', id: minor });
      await h.settle();
      const [opened, ...others] = roomOf(minor);
      expect(others).toEqual([]);
      expect(opened!.members).toEqual([]);
      expect(messagesOf(h.shownIn(opened!.id), minor)).toHaveLength(1);
    });

    it('says why a room was refused where it was asked for, and opens it when asked again', async () => {
      const minor = await open('Refused room');
      h.refuseNextRoom();
      await h.ask({ verb: 'incident room', id: minor }, { channel: 'ops' });
      await h.settle();
      expect(roomOf(minor)).toEqual([]);
      const notice = h.shown('ops').find((m) => m.text.includes(`#inc-${minor}-refused-room`));
      expect(notice?.text).toContain('Could not open');
      expect(notice?.text).toContain('to try again');
      expect(await incidentRoom(h.s.ctx.db, minor)).toMatchObject({ state: 'failed' });
      await h.ask({ verb: 'incident room', id: minor }, { channel: 'ops' });
      await h.settle();
      expect(roomOf(minor).map((r) => r.name)).toEqual([`inc-${minor}-refused-room-2`]);
    });
  });
});
