import { describe, expect, it } from 'vitest';
import { clipText, clipWithEllipsis } from '../../src/domain/clip-text.js';
import type { DestinationNotification } from '../../src/domain/notifications/notify-destination.js';
import type { IncidentAnnouncement } from '../../src/domain/notifications/announcement.js';
import { opsgenieRequest } from '../../src/delivery/opsgenie-publisher.js';
import { pagerDutyEvent } from '../../src/delivery/pagerduty-publisher.js';
import { telegramText } from '../../src/delivery/telegram-publisher.js';
import { slackRenderer } from '../../adapters/slack/render.js';
import { discordRenderer } from '../../adapters/discord/render.js';
import { hasLoneSurrogate } from '../helpers/lone-surrogate.js';

/** Graphemes of more than one UTF-16 unit: a surrogate pair, a ZWJ family, a letter and its combining accent, a flag. */
const GRAPHEMES = { emoji: '😀', family: '👩‍👩‍👧', accent: 'e\u0301', flag: '🇩🇪', hangul: '\u1100\u1161\u11a8' };

/** Text whose grapheme starts `before` units ahead of `at` (so that a cut at `at` falls inside it), after `lead` units of something else. */
const straddling = (grapheme: string, at: number, before: number, lead = 0): string => `${'a'.repeat(at - lead - before)}${grapheme}${'z'.repeat(50)}`;

/** Every way a cut at `at` can fall inside each grapheme. */
const cases = (at: number, lead = 0) =>
  Object.entries(GRAPHEMES).flatMap(([name, g]) =>
    Array.from({ length: g.length - 1 }, (_, i) => ({ name: `${name} ${i + 1}/${g.length}`, text: straddling(g, at, i + 1, lead) })),
  );

/** A cut kept the grapheme whole or left it out whole: the text before it ends in the filler. */
function expectWholeCut(out: string, max: number, mark: string): void {
  expect(out.length).toBeLessThanOrEqual(max);
  expect(hasLoneSurrogate(out)).toBe(false);
  expect(out.endsWith(`a${mark}`)).toBe(true);
}

describe('clipText', () => {
  it('leaves text within the limit as it is', () => {
    expect(clipText('héllo 👩‍👩‍👧', 14)).toBe('héllo 👩‍👩‍👧');
    expect(clipWithEllipsis('short', 5)).toBe('short');
  });

  for (const c of cases(20)) {
    it(`cuts before a grapheme it would split (${c.name}), with and without an ellipsis`, () => {
      expectWholeCut(clipText(c.text, 20), 20, '');
      expect(clipText(c.text, 20)).toBe('a'.repeat(c.text.search(/[^a]/)));
      expectWholeCut(clipWithEllipsis(c.text, 21), 21, '…');
    });
  }

  it('keeps a ZWJ sequence or a flag whole when it fits', () => {
    expect(clipText(`ab${GRAPHEMES.family}cd`, 10)).toBe(`ab${GRAPHEMES.family}`);
    expect(clipWithEllipsis(`${GRAPHEMES.flag}${GRAPHEMES.flag}x`, 8)).toBe(`${GRAPHEMES.flag}…`);
  });

  it('cuts one grapheme longer than the limit between code points, never inside a surrogate pair', () => {
    const zalgo = `a${'\u0301'.repeat(40)}`;
    expect(clipText(zalgo, 10)).toBe(zalgo.slice(0, 10));
    const family = `${GRAPHEMES.family}${GRAPHEMES.family}`;
    const cut = clipText(family.repeat(3), 5);
    expect(hasLoneSurrogate(cut)).toBe(false);
    expect(cut.length).toBeLessThanOrEqual(5);
  });
});

const notification = (title: string, description = 'Requests fail.'): DestinationNotification => ({
  action: 'open',
  event: 'incident.created',
  occurred_at: '2026-11-22T10:02:00.000Z',
  service: { id: 1001, name: 'Acme API', urlname: 'acme-api' },
  incident: {
    id: 7,
    title,
    severity: 'major',
    resolved: false,
    stage: 'investigating',
    description,
    tracker_url: 'http://status.test/incidents/7',
    status_page_url: null,
    created_at: '2026-11-22T10:00:00.000Z',
  },
  update: null,
});

const announcement = (title: string, description: string): IncidentAnnouncement => ({
  kind: 'incident',
  event: 'updated',
  channel: { platform: 'slack', workspaceId: 'T1', channelId: 'C1' },
  incident: {
    id: 7,
    title,
    severity: 'major',
    resolved: false,
    stage: 'identified',
    description,
    service: { id: 1001, name: 'Acme API', urlname: 'acme-api', trackerUrl: 'http://status.test/services/acme-api' },
    url: null,
    trackerUrl: 'http://status.test/incidents/7',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:02:00.000Z',
    resolvedAt: null,
  },
  update: { stage: 'identified', description, createdAt: '2026-11-22T10:02:00.000Z' },
});

describe("each destination's limit cuts at a grapheme", () => {
  for (const c of cases(130)) {
    it(`Opsgenie's 130-character message (${c.name})`, () => {
      expectWholeCut((opsgenieRequest(notification(c.text)).body as { message: string }).message, 130, '');
    });
  }
  for (const c of cases(1024)) {
    it(`PagerDuty's 1024-character summary (${c.name})`, () => {
      expectWholeCut((pagerDutyEvent('KEY', notification(c.text)).payload as { summary: string }).summary, 1024, '');
    });
  }

  for (const [name, g] of Object.entries(GRAPHEMES)) {
    it(`Telegram's 4096 characters (${name})`, () => {
      for (let shift = 0; shift < g.length; shift++) {
        const text = telegramText(notification('Down', `${'a'.repeat(shift)}${g.repeat(5000)}`));
        expect(hasLoneSurrogate(text)).toBe(false);
        expect(text.length).toBeLessThanOrEqual(4096);
        const body = text.split('\n\n')[1]!;
        expect(body.endsWith(`${g}…`) || body.endsWith('a…')).toBe(true);
      }
    });
  }

  // Slack: `*Identified* — ` before the update's text, 2900 in a section with its ellipsis; 140 in a header after `#7 `.
  const slackLead = '*Identified* — '.length;
  for (const c of cases(2899, slackLead)) {
    it(`Slack's section (${c.name})`, () => {
      const message = slackRenderer.update(announcement('Down', c.text), announcement('Down', c.text).update!);
      expectWholeCut(message.text, 2900, '…');
      expectWholeCut((message.blocks![0] as { text: { text: string } }).text.text, 2900, '…');
    });
  }
  for (const c of cases(139, '#7 '.length)) {
    it(`Slack's header (${c.name})`, () => {
      const header = slackRenderer.incident(announcement(c.text, 'x')).blocks![0] as { text: { text: string } };
      expectWholeCut(header.text.text, 140, '…');
    });
  }

  // Discord: 4096 in an embed's description, 256 in its title (after `Identified · #7 `), each with its ellipsis.
  for (const c of cases(4095)) {
    it(`Discord's embed description (${c.name})`, () => {
      const a = announcement('Down', c.text);
      expectWholeCut(discordRenderer.update(a, a.update!).embeds![0]!.description!, 4096, '…');
    });
  }
  for (const c of cases(255, 'Identified · #7 '.length)) {
    it(`Discord's embed title (${c.name})`, () => {
      const a = announcement(c.text, 'x');
      expectWholeCut(discordRenderer.update(a, a.update!).embeds![0]!.title!, 256, '…');
    });
  }
});
