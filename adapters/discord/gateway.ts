import { Client, Events, GatewayDispatchEvents, GatewayIntentBits, Routes } from 'discord.js';
import type { APIInteraction } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';
import type { Logger } from '../../src/core/logger.js';
import type { InteractionHandler } from './interactions.js';
import { DISCORD_API } from './rest.js';

export interface GatewayTransport {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Interactions over the gateway (a discord.js Client), for hosts without a
 * public HTTPS endpoint: each raw INTERACTION_CREATE goes through the same
 * handler as HTTP, and its response is posted to the interaction callback.
 */
export function createGatewayTransport(options: {
  env: NonNullable<ChatEnv['discord']>;
  handler: InteractionHandler;
  logger: Logger;
}): GatewayTransport {
  const { env, handler, logger } = options;
  let client: Client | null = null;
  let login: Promise<void> | null = null;

  async function respond(gateway: Client, interaction: APIInteraction): Promise<void> {
    const response = await handler(interaction);
    // The callback is authorized by the interaction's token, not the bot's.
    await gateway.rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body: response, auth: false });
  }

  return {
    async start() {
      const gateway = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: env.apiUrl ?? DISCORD_API } });
      gateway.ws.on(GatewayDispatchEvents.InteractionCreate, (interaction: APIInteraction) => {
        respond(gateway, interaction).catch((error: unknown) => logger.error('discord gateway interaction could not be answered', error));
      });
      gateway.on(Events.Error, (error) => logger.error('discord gateway error', error));
      gateway.once(Events.ClientReady, (ready) => logger.info(`discord gateway connected as ${ready.user.tag}`));
      client = gateway;
      // Not awaited: statusbot serves its API while Discord is unreachable; discord.js reconnects once connected.
      login = gateway.login(env.token).then(
        () => undefined,
        (error: unknown) => logger.error('discord gateway login failed; interactions arrive over HTTP only', error),
      );
    },
    async stop() {
      await login;
      await client?.destroy();
      client = null;
      login = null;
    },
  };
}
