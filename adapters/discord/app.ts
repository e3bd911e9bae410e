import { ApplicationCommandType, InteractionResponseType, InteractionType, Routes } from 'discord.js';
import type { APIInteraction, APIInteractionResponse, REST } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { ClientAddress } from '../../src/infrastructure/client-address.js';
import type { ChatFront } from '../chat/chat-front.js';
import { createChatLimiter } from '../chat/chat-limits.js';
import type { ChatRateLimit } from '../chat/chat-limits.js';
import { createReplayGuard } from '../chat/replay-guard.js';
import { roomHooks } from '../chat/room-hooks.js';
import { runVerb } from '../chat/verbs.js';
import type { VerbCall } from '../chat/verbs.js';
import type { ChatReply } from '../chat/reply.js';
import { DIRECT_MESSAGES, STALE_CONTROL } from '../chat/wording.js';
import { closeDiscordRest, createDiscordRest } from './client.js';
import { NO_CHOICES, autocomplete, verbOf } from './commands.js';
import { modalValues, parseCustomId, parseReportId } from './modals.js';
import { createDiscordPublisher } from './publisher.js';
import { pinReactions } from './reactions.js';
import { INTERACTIONS_PATH, createGatewayReceiver, createHttpReceiver } from './receiver.js';
import type { DiscordReceiver, InteractionAnswer, InteractionHandler } from './receiver.js';
import { fileMessage, replyResponse, textResponse } from './render.js';
import { discordRequest } from './request.js';
import type { DiscordDeps } from './request.js';

export interface DiscordFrontOptions {
  ctx: DomainContext;
  env: NonNullable<ChatEnv['discord']>;
  logger: Logger;
  /** Who sent a request to /discord/interactions, for its per-address limit. */
  clientAddress: ClientAddress;
  rateLimit: ChatRateLimit;
}

/** What an interaction names in logs: the command or the control, never its options (`/statusbot link` carries a key). */
function describe(interaction: APIInteraction): string {
  switch (interaction.type) {
    case InteractionType.ApplicationCommand:
    case InteractionType.ApplicationCommandAutocomplete:
      return `command /${interaction.data.name}`;
    case InteractionType.MessageComponent:
      return `button ${interaction.data.custom_id}`;
    case InteractionType.ModalSubmit:
      return `form ${interaction.data.custom_id}`;
    default:
      return 'interaction';
  }
}

/** The verb an interaction asks for: a command, a button that opens a form, or a submitted form. */
function callOf(interaction: APIInteraction): VerbCall | string {
  switch (interaction.type) {
    case InteractionType.ApplicationCommand:
      return interaction.data.type === ApplicationCommandType.ChatInput ? verbOf(interaction.data) : 'statusbot has slash commands only.';
    case InteractionType.MessageComponent: {
      const service = parseReportId(interaction.data.custom_id);
      if (service) return { verb: 'report', service };
      const ref = parseCustomId(interaction.data.custom_id);
      return ref && ref.kind !== 'new' ? { verb: 'form', form: ref.kind, target: ref.incidentId } : STALE_CONTROL;
    }
    case InteractionType.ModalSubmit: {
      const ref = parseCustomId(interaction.data.custom_id);
      return ref ? { verb: 'submit', ref, values: modalValues(interaction.data) } : STALE_CONTROL;
    }
    default:
      return STALE_CONTROL;
  }
}

/**
 * A file for the channel, after the deferred response: a follow-up message
 * of the interaction (multipart, with the file as `files[0]`). When it
 * fails, the deferred response says so instead of "thinking" on.
 */
function postFile(deps: DiscordDeps & { rest: REST }, interaction: APIInteraction, reply: Extract<ChatReply, { kind: 'file' }>) {
  return async (): Promise<void> => {
    const { rest, logger } = deps;
    const { message, files } = fileMessage(reply);
    // Follow-ups are authorized by the interaction's token, not the bot's.
    try {
      await rest.post(Routes.webhook(interaction.application_id, interaction.token), { body: message, files, auth: false });
      return;
    } catch (error) {
      logger.error(`discord: posting ${reply.file.filename} in channel ${interaction.channel?.id ?? interaction.channel_id ?? '?'} failed`, error);
    }
    try {
      await rest.patch(Routes.webhookMessage(interaction.application_id, interaction.token, '@original'), { body: { content: reply.failed }, auth: false });
    } catch (error) {
      logger.error('discord: the failure of a file could not be told', error);
    }
  };
}

/** Raw interaction in, answer out: the one handler behind both receivers. */
export function createInteractionHandler(deps: DiscordDeps & { rest: REST }): InteractionHandler {
  const answer = (response: APIInteractionResponse): InteractionAnswer => ({ response });
  return async (interaction): Promise<InteractionAnswer> => {
    if (interaction.type === InteractionType.Ping) return answer({ type: InteractionResponseType.Pong });
    const req = discordRequest(deps, interaction);
    if (interaction.type === InteractionType.ApplicationCommandAutocomplete) {
      if (!req) return answer(NO_CHOICES);
      return answer(
        await autocomplete(req, interaction.data).catch((error: unknown) => {
          deps.logger.error(`discord ${describe(interaction)} autocomplete failed`, error);
          return NO_CHOICES;
        }),
      );
    }
    if (!req) return answer(textResponse(DIRECT_MESSAGES));
    const call = callOf(interaction);
    if (typeof call === 'string') return answer(textResponse(call));
    const reply = await runVerb(req, call, describe(interaction));
    if (reply.kind === 'file') return { response: replyResponse(reply), afterwards: postFile(deps, interaction, reply) };
    return answer(replyResponse(reply));
  };
}

/** Discord: HTTP interactions and/or the gateway feeding one handler, and the publisher of `discord:` outbox rows. */
export async function createDiscordFront(options: DiscordFrontOptions): Promise<ChatFront> {
  const { ctx, env, logger } = options;
  const receivers: DiscordReceiver[] = [];
  if (env.publicKey) {
    const now = () => ctx.clock.now().getTime();
    receivers.push(
      createHttpReceiver({
        publicKey: env.publicKey,
        now,
        clientAddress: options.clientAddress,
        limits: createChatLimiter({ rateLimit: options.rateLimit, now }),
        replays: createReplayGuard({ ctx, platform: 'discord', logger, now }),
      }),
    );
  } else logger.info(`Discord HTTP interactions are off: set DISCORD_PUBLIC_KEY to answer at ${INTERACTIONS_PATH}`);
  const rest = createDiscordRest(env, { rejectOnRateLimit: true });
  if (env.gateway) receivers.push(createGatewayReceiver({ env, logger, onReaction: pinReactions({ ctx, logger }, rest) }));
  const handler = createInteractionHandler({ ctx, logger, rest });
  for (const receiver of receivers) receiver.init(handler);
  return {
    name: 'discord',
    rawHandlers: Object.assign({}, ...receivers.map((r) => r.rawHandlers)),
    publisher: createDiscordPublisher({ rest, rooms: roomHooks(ctx) }),
    async start() {
      for (const receiver of receivers) await receiver.start();
    },
    async stop() {
      for (const receiver of receivers) await receiver.stop();
      closeDiscordRest(rest);
    },
  };
}
