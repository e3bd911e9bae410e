import { readChatEnv } from '../config/env.js';
import { CommandError } from './cli-errors.js';
import type { Command } from './command.js';

export const discordRegisterCommand: Command = {
  name: 'discord register',
  synopsis: '[--guild ID]',
  summary: 'register the Discord slash commands',
  details: "Needs DISCORD_TOKEN and DISCORD_APPLICATION_ID. Global commands take up to an hour to show; a guild's at once.",
  options: ['guild'],
  async run(input) {
    const discord = readChatEnv(input.env).discord;
    if (!discord) throw new CommandError('discord register needs DISCORD_TOKEN and DISCORD_APPLICATION_ID in the environment');
    const { registerDiscordCommands } = await import('../../adapters/discord/command-definitions.js');
    const { count, scope } = await registerDiscordCommands({ env: discord, guildId: input.string('guild') ?? null });
    input.out(`registered ${count} commands ${scope}`);
    return 0;
  },
};
