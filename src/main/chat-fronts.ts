import type { ChatFront } from '../../adapters/chat/chat-front.js';
import type { ChatRateLimit } from '../../adapters/chat/chat-limits.js';
import type { ChatEnv } from '../config/env.js';
import type { DomainContext } from '../domain/context.js';
import type { ClientAddress } from '../infrastructure/client-address.js';
import type { Logger } from '../infrastructure/logger.js';

/** The chat fronts whose credentials are set; each is started later, once the port is the server's. */
export async function createChatFronts(
  ctx: DomainContext,
  chatEnv: ChatEnv,
  logger: Logger,
  guards: { clientAddress: ClientAddress; rateLimit: ChatRateLimit },
): Promise<ChatFront[]> {
  for (const note of chatEnv.notes) logger.info(note);
  const fronts: ChatFront[] = [];
  // Loaded only when configured: the chat libraries weigh tens of MB of memory.
  if (chatEnv.slack) {
    const { createSlackFront } = await import('../../adapters/slack/app.js');
    fronts.push(await createSlackFront({ ctx, env: chatEnv.slack, logger, ...guards }));
  }
  if (chatEnv.discord) {
    const { createDiscordFront } = await import('../../adapters/discord/app.js');
    fronts.push(await createDiscordFront({ ctx, env: chatEnv.discord, logger, ...guards }));
  }
  return fronts;
}
