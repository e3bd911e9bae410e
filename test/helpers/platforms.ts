import type { ChatHarness, HarnessOptions, Platform } from './chat.js';
import { startDiscordHarness } from './discord.js';
import { startSlackHarness } from './slack.js';

/** The table every chat behaviour test runs from: the same scenario on each platform. */
export const PLATFORMS: readonly { platform: Platform; start: (options?: HarnessOptions) => Promise<ChatHarness> }[] = [
  { platform: 'slack', start: startSlackHarness },
  { platform: 'discord', start: startDiscordHarness },
];
