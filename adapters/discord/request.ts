import { PermissionFlagsBits } from 'discord.js';
import type { APIInteraction } from 'discord.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { DomainContext } from '../../src/domain/context.js';
import { reporters } from '../../src/domain/vendors/user-reports.js';
import type { ChatRight } from '../chat/dialect.js';
import type { ChatActor, ChatRequest } from '../chat/chat-request.js';
import { DISCORD_DIALECT } from './dialect.js';

export interface DiscordDeps {
  ctx: DomainContext;
  logger: Logger;
}

const NEEDS: Record<ChatRight, bigint> = {
  link_workspace: PermissionFlagsBits.ManageGuild,
  manage_channel: PermissionFlagsBits.ManageChannels,
};

/** Discord's side of the permission rule: the member's permissions in the channel (Administrator holds every right). */
function discordActor(permissions: bigint): ChatActor {
  const admin = PermissionFlagsBits.Administrator;
  return {
    has: async (right) => (permissions & admin) === admin || (permissions & NEEDS[right]) === NEEDS[right],
  };
}

/** A chat request from an interaction in a guild channel; null in direct messages. */
export function discordRequest(deps: DiscordDeps, interaction: APIInteraction): ChatRequest | null {
  const guildId = interaction.guild_id;
  const channelId = interaction.channel?.id ?? interaction.channel_id;
  if (!guildId || !channelId) return null;
  const userId = interaction.member?.user.id ?? interaction.user?.id ?? '';
  return {
    // The interaction's id is the audit trail's request id for what it changes.
    ctx: deps.ctx.actingAs({ actor: `discord:${guildId}/${userId}`, requestId: interaction.id }),
    logger: deps.logger,
    dialect: DISCORD_DIALECT,
    workspaceId: guildId,
    channel: { platform: 'discord', workspaceId: guildId, channelId },
    actor: discordActor(BigInt(interaction.member?.permissions ?? '0')),
    reporter: reporters.discord(userId),
  };
}
