import { Routes } from 'discord.js';
import type { APIMessage, GatewayMessageReactionAddDispatchData, REST } from 'discord.js';
import { notePinned } from '../chat/room-verbs.js';
import type { DiscordDeps } from './request.js';

export const PIN_REACTION = '📌';

export type ReactionHandler = (reaction: GatewayMessageReactionAddDispatchData) => Promise<void>;

/**
 * A 📌 on a message of an incident's room adds the message to the incident's
 * notes; its text is fetched over REST (which needs the app's Message Content intent).
 */
export function pinReactions(deps: DiscordDeps, rest: REST): ReactionHandler {
  return async (r) => {
    if (r.emoji.name !== PIN_REACTION || !r.guild_id) return;
    const ctx = deps.ctx.actingAs({ actor: `discord:${r.guild_id}/${r.user_id}`, requestId: null });
    await notePinned({ ctx, logger: deps.logger }, { platform: 'discord', channelId: r.channel_id, messageId: r.message_id }, async () => {
      const message = (await rest.get(Routes.channelMessage(r.channel_id, r.message_id))) as APIMessage;
      // Without the intent, Discord sends a member's message with no content: nothing to note, and the operator is told why.
      if (message.content === '' && message.attachments.length === 0 && message.embeds.length === 0 && !message.sticker_items?.length) {
        deps.logger.warn(
          'discord: a message pinned with 📌 came without its text, so it was not noted: give the app the Message Content intent (Developer Portal → the app → Bot → Privileged Gateway Intents)',
          { channelId: r.channel_id, messageId: r.message_id },
        );
      }
      return { authorId: message.author.id, text: message.content };
    });
  };
}
