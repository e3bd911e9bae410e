import { Routes } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';
import { commandDefinitions } from './command-definitions.js';
import { closeDiscordRest, createDiscordRest } from './rest.js';

/** Registers the slash commands globally, or in one guild (instant, for development). */
export async function registerDiscordCommands(options: {
  env: NonNullable<ChatEnv['discord']>;
  guildId: string | null;
}): Promise<{ count: number; scope: string }> {
  const { env, guildId } = options;
  const rest = createDiscordRest(env, { rejectOnRateLimit: false });
  try {
    const route = guildId ? Routes.applicationGuildCommands(env.applicationId, guildId) : Routes.applicationCommands(env.applicationId);
    const body = commandDefinitions();
    // PUT replaces the whole set: commands removed here disappear from Discord too.
    const registered = await rest.put(route, { body });
    return { count: Array.isArray(registered) ? registered.length : body.length, scope: guildId ? `in guild ${guildId}` : 'globally' };
  } finally {
    closeDiscordRest(rest);
  }
}
