import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentNotes } from '../../src/domain/chat/incident-notes.js';
import type { ChatHarness } from '../helpers/chat.js';
import { startDiscordHarness } from '../helpers/discord.js';
import { recordingLogger } from '../helpers/loggers.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

/** Discord sends the text of others' messages only to apps with the Message Content intent. */
describe('a 📌 on Discord without the Message Content intent', () => {
  const logger = recordingLogger();
  let h: ChatHarness;
  beforeAll(async () => {
    h = await startDiscordHarness({ delivery: FAST_DELIVERY, incidentChannels: true, gateway: true, logger });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('notes nothing and says in the log why, and how to turn the intent on', async () => {
    const res = await h.s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Queue stuck', description: 'x', status: 'major' } });
    expect(res.status, res.text).toBe(201);
    const id = Number(res.body.data.id);
    await h.settle();
    const [room] = h.rooms().filter((r) => r.name.startsWith(`inc-${id}-`));
    // What Discord sends for a member's message when the app lacks the intent: no content, nothing attached.
    const textless = h.say(room!.id, '', 'member');
    await h.pin(room!.id, textless);
    const warning = await waitUntil(() => logger.records.find((r) => r.level === 'warn' && r.message.includes('Message Content intent')), {
      what: 'the warning',
    });
    expect(warning.message).toContain('Privileged Gateway Intents');
    expect(warning.fields).toMatchObject({ channelId: room!.id, messageId: textless });
    expect(await incidentNotes(h.s.ctx.db, id)).toEqual([]);

    // A message with text is noted as ever.
    const said = h.say(room!.id, 'Restarted the consumers', 'member');
    await h.pin(room!.id, said);
    await waitUntil(async () => (await incidentNotes(h.s.ctx.db, id)).length === 1, { what: 'the note' });
    expect(logger.records.filter((r) => r.level === 'warn' && r.message.includes('Message Content intent'))).toHaveLength(1);
  });
});
