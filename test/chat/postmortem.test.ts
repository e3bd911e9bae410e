import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatHarness } from '../helpers/chat.js';
import { recordingLogger } from '../helpers/loggers.js';
import { PLATFORMS } from '../helpers/platforms.js';
import { FAST_DELIVERY, GLOBEX_KEY } from '../helpers/test-server.js';

/** `/incident postmortem`: the API's postmortem posted as a file where it was asked, the same scenario on every platform. */
describe.each(PLATFORMS)('$platform', ({ platform, start }) => {
  let h: ChatHarness;
  const logger = recordingLogger();
  beforeAll(async () => {
    h = await start({ delivery: FAST_DELIVERY, incidentChannels: true, logger });
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function open(title: string, options: { status?: 'minor' | 'major'; key?: string; serviceId?: number } = {}) {
    const res = await h.s.api('POST', '/api/v2/incidents', {
      body: { service_id: options.serviceId ?? 1001, title, description: 'First look', status: options.status ?? 'minor' },
      ...(options.key ? { key: options.key } : {}),
    });
    expect(res.status, res.text).toBe(201);
    return Number(res.body.data.id);
  }
  const apiPostmortem = async (id: number) => {
    const res = await h.s.api('GET', `/api/v2/incidents/${id}/postmortem`);
    expect(res.status).toBe(200);
    return res.text;
  };

  it('posts the postmortem of an incident named by id as a Markdown file in the channel, the same document as the API', async () => {
    const id = await open('Search is slow');
    await h.ask({ verb: 'incident resolve', id, message: 'Index rebuilt' });
    await h.settle();
    const ops = h.channelId('ops');

    const answer = await h.ask({ verb: 'incident postmortem', id }, { channel: 'ops' });
    expect(answer.text).toContain(`Postmortem of incident ${h.bold(`#${id}`)}`);

    const [file, ...others] = h.filesIn(ops);
    expect(others).toEqual([]);
    expect(file!.filename).toBe(`incident-${id}-postmortem.md`);
    expect(file!.comment).toBe(`Postmortem of incident ${h.bold(`#${id}`)}: Search is slow`);
    expect(file!.content).toBe(await apiPostmortem(id));
    expect(file!.content).toContain('# Postmortem: Search is slow');
    expect(file!.content).toContain('Index rebuilt');
  });

  it("posts the room's incident in its room without an id, and asks which incident elsewhere", async () => {
    const id = await open('Checkout down', { status: 'major' });
    await h.settle();
    const room = h.rooms().find((r) => r.name.startsWith(`inc-${id}-`));
    expect(room, 'the room of the major incident').toBeDefined();

    await h.ask({ verb: 'incident postmortem' }, { channelId: room!.id });
    const [file, ...others] = h.filesIn(room!.id);
    expect(others).toEqual([]);
    expect(file!.filename).toBe(`incident-${id}-postmortem.md`);
    expect(file!.content).toContain('# Postmortem: Checkout down');
    expect(file!.content).toContain('- **Resolved:** not yet');

    const elsewhere = await h.ask({ verb: 'incident postmortem' }, { channel: 'lobby' });
    expect(elsewhere.text).toMatch(/^Usage: /);
    expect(elsewhere.text).toContain('postmortem');
    expect(h.filesIn(h.channelId('lobby'))).toEqual([]);
  });

  it("refuses an unknown incident and another company's, and posts nothing", async () => {
    const globex = await open('Globex outage', { key: GLOBEX_KEY, serviceId: 2001 });
    for (const id of [999_999, globex]) {
      const answer = await h.ask({ verb: 'incident postmortem', id }, { channel: 'secrets' });
      expect(answer.text, String(id)).toContain('The incident does not exist');
    }
    expect(h.filesIn(h.channelId('secrets'))).toEqual([]);
  });

  it('tells whoever asked when the platform refuses the file, and logs it', async () => {
    const id = await open('Refused file');
    h.refuseNextFile();
    const answer = await h.ask({ verb: 'incident postmortem', id }, { channel: 'private' });
    expect(answer.text).toContain(`The postmortem of incident ${h.bold(`#${id}`)} could not be posted in this channel`);
    expect(answer.text).toContain(`GET /api/v2/incidents/${id}/postmortem`);
    expect(h.filesIn(h.channelId('private'))).toEqual([]);
    expect(logger.records.some((r) => r.level === 'error' && r.message.includes(`incident-${id}-postmortem.md`) && r.message.includes(platform))).toBe(true);

    // Asked again, it is posted.
    await h.ask({ verb: 'incident postmortem', id }, { channel: 'private' });
    expect(h.filesIn(h.channelId('private')).map((f) => f.filename)).toEqual([`incident-${id}-postmortem.md`]);
  });
});
