import { readChatEnv } from '../config/env.js';
import { CommandError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { plural } from '../domain/plural.js';

/** `statusbot discord register`, as commands.ts describes it. */
export async function runDiscordRegister(input: CommandInput): Promise<number> {
  const discord = readChatEnv(input.env).discord;
  if (!discord) throw new CommandError('discord register needs DISCORD_TOKEN and DISCORD_APPLICATION_ID in the environment');
  const { registerDiscordCommands, DiscordUnavailableError } = await import('../../adapters/discord/command-definitions.js');
  const { count, scope } = await registerDiscordCommands({ env: discord, guildId: input.string('guild') ?? null }).catch((error: unknown) => {
    throw error instanceof DiscordUnavailableError ? new CommandError(error.message) : error;
  });
  input.out(`registered ${plural(count, 'command')} ${scope}`);
  return 0;
}
