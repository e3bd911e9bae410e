import { expect } from 'vitest';
import type { ChatHarness, HarnessOptions, PlatformFailure, Sent } from '../helpers/chat.js';
import { startDiscordHarness } from '../helpers/discord.js';
import { startSlackHarness } from '../helpers/slack.js';

/** An incident as its message names it. */
export interface Named {
  state: 'minor' | 'major' | 'resolved' | 'deleted';
  id: number;
  title: string;
  service: string;
}

/** A platform's driver for the announcement table: its harness, and its messages in the platform's own shape. */
export interface AnnouncementDriver {
  h: ChatHarness;
  /** The message as the platform keeps it now: Slack's `{ text, blocks }`, Discord's body. */
  stored(channelId: string, messageId: string): any;
  /** The replies under a message, in order: Slack's texts in its thread, Discord's embeds. */
  replies(channelId: string, messageId: string): unknown[];
}

const SLACK_STATE = { minor: 'Minor', major: 'Major', resolved: 'Resolved', deleted: 'Deleted' } as const;
const DISCORD_MARK = { minor: '🟠', major: '🔴', resolved: '✅', deleted: '🗑️' } as const;
const DISCORD_STATUS = { 'Minor issues': '🟠', 'Major outage': '🔴', Operational: '🟢' } as const;

/** Failures to inject: how many, which, and whether only replies get them. */
type Failures = readonly (readonly [number, PlatformFailure, 'replies'?])[];

/** An update written in Markdown, and how each platform shows it. */
export const MARKDOWN_CASES = [
  {
    written: '**Rolled back** the _deploy_ of `api<2>`, see [the runbook](https://runbook.example/q?a=1&b=2)\n- drained queue_a & queue_b\n- 2 * 3 < 7',
    slack: '*Rolled back* the _deploy_ of `api&lt;2&gt;`, see <https://runbook.example/q?a=1&b=2|the runbook>\n• drained queue_a &amp; queue_b\n• 2 * 3 &lt; 7',
  },
  {
    written: '**Rolled back** the _deploy_, see [the runbook](https://runbook.example/q)\n- drained queue_a & queue_b',
    slack: '*Rolled back* the _deploy_, see <https://runbook.example/q|the runbook>\n• drained queue_a &amp; queue_b',
  },
] as const;

/**
 * The rows of the announcement table: how each platform names an incident, a reply, a status change and
 * its buttons, and the checks of its own message shape. The scenarios are in announcements.test.ts.
 */
export const ANNOUNCEMENT_PLATFORMS = [
  {
    platform: 'slack',
    async start(options: HarnessOptions): Promise<AnnouncementDriver> {
      const h = await startSlackHarness(options);
      const all = (channelId: string) => h.fake.messages.get(channelId) ?? [];
      return {
        h,
        stored: (channelId, ts) => all(channelId).find((m) => m.ts === ts),
        replies: (channelId, ts) =>
          all(channelId)
            .filter((m) => m.threadTs === ts)
            .map((m) => m.text),
      };
    },
    /** Slack's fallback text. */
    headline: (i: Named) => `${SLACK_STATE[i.state]} incident #${i.id}: ${i.title} (${i.service})`,
    headlineOf: (body: any): string => body.text,
    reply: (stage: string, _i: Pick<Named, 'id' | 'title'>, text: string): unknown => `*${stage}* — ${text}`,
    /** How the update's text is shown: Slack's mrkdwn. */
    markdown: (c: (typeof MARKDOWN_CASES)[number]) => c.slack,
    /** Markup of the written text that must not reach the platform. */
    foreign: '**' as string | null,
    statusHeadline: (service: string, status: keyof typeof DISCORD_STATUS) => `${service} is now ${status}`,
    digestHeadline: 'Vendors: all services operational',
    /** Each button as [label, what it sends back]. */
    buttons: (body: any): [string, string][] =>
      (body.blocks ?? []).filter((b: any) => b.type === 'actions').flatMap((b: any) => b.elements.map((e: any) => [e.text.text, e.action_id])),
    postUpdate: (_id: number) => 'incident_post_update',
    resolve: (_id: number) => 'incident_resolve',
    /** Every control of a message, as the platform carries them. */
    controls: (body: any): unknown[] => (body.blocks ?? []).filter((b: any) => b.type === 'actions'),
    expectPosted(sent: Sent, i: Named, _description: string) {
      expect(sent.body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: `#${i.id} ${i.title}` } });
    },
    expectResolved(stored: any) {
      expect(JSON.stringify(stored.blocks)).toContain(':white_check_mark: Resolved');
    },
    /** An outage of the Web API: 500s, 429s, then 500s of thread replies; and how many of each it answered. */
    storm: [
      [4, { status: 500 }],
      [3, { status: 429, retryAfterSeconds: 1 }],
      [2, { status: 500 }, 'replies'],
    ] as Failures,
    stormed: { 500: 6, 429: 3 },
    /** What a new start meets: a few 500s and a 429. */
    blip: [
      [3, { status: 500 }],
      [1, { status: 429, retryAfterSeconds: 1 }],
    ] as Failures,
    /** How much sooner than its Retry-After the next call to a rate-limited channel may be seen, in ms. */
    early: 50,
  },
  {
    platform: 'discord',
    async start(options: HarnessOptions): Promise<AnnouncementDriver> {
      const h = await startDiscordHarness(options);
      return {
        h,
        stored: (channelId, id) => h.fake.channel(channelId).find((m) => m.id === id)?.body,
        replies: (channelId, id) =>
          h.fake
            .channel(channelId)
            .filter((m) => m.replyTo === id)
            .map((m) => m.body.embeds[0]),
      };
    },
    /** The embed's title. */
    headline: (i: Named) => `${DISCORD_MARK[i.state]} #${i.id} ${i.title}${i.state === 'deleted' ? ' (deleted)' : ''}`,
    headlineOf: (body: any): string => body.embeds[0].title,
    reply: (stage: string, i: Pick<Named, 'id' | 'title'>, text: string): unknown =>
      expect.objectContaining({ title: `${stage} · #${i.id} ${i.title}`, description: text }),
    /** Discord reads Markdown: the update as written. */
    markdown: (c: (typeof MARKDOWN_CASES)[number]) => c.written,
    foreign: null as string | null,
    statusHeadline: (service: string, status: keyof typeof DISCORD_STATUS) => `${service}: ${DISCORD_STATUS[status]} ${status}`,
    digestHeadline: 'Board Vendors',
    buttons: (body: any): [string, string][] =>
      (body.components ?? []).flatMap((row: any) => row.components.filter((c: any) => c.type === 2).map((c: any) => [c.label, c.custom_id])),
    postUpdate: (id: number) => `incident:update:${id}`,
    resolve: (id: number) => `incident:resolve:${id}`,
    controls: (body: any): unknown[] => body.components,
    expectPosted(sent: Sent, _i: Named, description: string) {
      expect(sent.body.embeds[0].description).toBe(description);
      expect(sent.body.allowed_mentions).toEqual({ parse: [] });
      expect(sent.body.nonce).toBeTruthy();
      expect(sent.body.enforce_nonce).toBe(true);
      expect(sent.headers.authorization).toBe('Bot fake-discord-bot-token');
    },
    expectResolved(stored: any) {
      expect(stored.embeds[0].fields.find((f: any) => f.name === 'Stage').value).toBe('Resolved');
    },
    /** An outage of the REST API: 500s, 429s (a global one too), 500s; and how many of each it answered. */
    storm: [
      [4, { status: 500 }],
      [2, { status: 429, retryAfterSeconds: 0.3 }],
      [1, { status: 429, retryAfterSeconds: 0.2, global: true }],
      [3, { status: 500 }],
    ] as Failures,
    stormed: { 500: 7, 429: 3 },
    blip: [
      [3, { status: 500 }],
      [1, { status: 429, retryAfterSeconds: 0.2 }],
    ] as Failures,
    early: 10,
  },
] as const;
