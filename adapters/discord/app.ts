import type { ChatEnv } from '../../src/config/env.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { Logger } from '../../src/core/logger.js';
import type { RawHandler } from '../../src/core/raw-handler.js';
import type { ChatFront } from '../chat-front.js';
import { createGatewayTransport } from './gateway.js';
import { createInteractionHandler, discordPublicKey, interactionsEndpoint } from './interactions.js';
import { createDiscordPublisher } from './publisher.js';
import { closeDiscordRest, createDiscordRest } from './rest.js';

export interface DiscordFrontOptions {
  ctx: DomainContext;
  env: NonNullable<ChatEnv['discord']>;
  logger: Logger;
}

export const INTERACTIONS_PATH = '/discord/interactions';

/** Discord: HTTP interactions and/or the gateway feeding one handler, and the publisher of `discord:` outbox rows. */
export async function createDiscordFront(options: DiscordFrontOptions): Promise<ChatFront> {
  const { ctx, env, logger } = options;
  const handler = createInteractionHandler({ ctx, logger });
  const rawHandlers: Record<string, RawHandler> = {};
  if (env.publicKey) {
    const publicKey = discordPublicKey(env.publicKey);
    rawHandlers[INTERACTIONS_PATH] = interactionsEndpoint({ publicKey, handler, now: () => ctx.clock.now().getTime() });
  } else {
    logger.info(`Discord HTTP interactions are off: set DISCORD_PUBLIC_KEY to answer at ${INTERACTIONS_PATH}`);
  }
  const gateway = env.gateway ? createGatewayTransport({ env, handler, logger }) : null;
  const rest = createDiscordRest(env, { rejectOnRateLimit: true });
  return {
    name: 'discord',
    rawHandlers,
    publisher: createDiscordPublisher({ rest }),
    async start() {
      await gateway?.start();
    },
    async stop() {
      await gateway?.stop();
      closeDiscordRest(rest);
    },
  };
}
