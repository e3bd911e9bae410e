import type { App } from '@slack/bolt';
import { notePinned } from '../chat/room-verbs.js';
import type { SlackDeps } from './request.js';

/** Slack's name of 📌. */
export const PIN_REACTION = 'pushpin';

/** A 📌 on a message of an incident's room adds the message to the incident's notes (its text read with conversations.history). */
export function registerReactions(app: App, deps: SlackDeps): void {
  app.event('reaction_added', async ({ event, body, client }) => {
    if (event.reaction !== PIN_REACTION || event.item.type !== 'message') return;
    const { channel, ts } = event.item;
    const team = (body as { team_id?: string }).team_id ?? '';
    const ctx = deps.ctx.actingAs({ actor: `slack:${team}/${event.user}`, requestId: event.event_ts });
    await notePinned({ ctx, logger: deps.logger }, { platform: 'slack', channelId: channel, messageId: ts }, async () => {
      const history = await client.conversations.history({ channel, latest: ts, oldest: ts, inclusive: true, limit: 1 });
      // A reply in a thread is not in the channel's history; conversations.replies finds it by its own ts.
      const message =
        history.messages?.find((m) => m.ts === ts) ??
        (await client.conversations.replies({ channel, ts, latest: ts, oldest: ts, inclusive: true, limit: 1 })).messages?.find((m) => m.ts === ts);
      if (!message?.text) return null;
      return { authorId: message.user ?? event.item_user ?? event.user, text: message.text };
    });
  });
}
