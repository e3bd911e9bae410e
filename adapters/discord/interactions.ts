import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ApplicationCommandType, InteractionResponseType, InteractionType } from 'discord.js';
import type { APIApplicationCommandAutocompleteResponse, APIInteraction, APIInteractionResponse } from 'discord.js';
import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { Logger } from '../../src/core/logger.js';
import type { RawHandler } from '../../src/core/raw-handler.js';
import { autocomplete, runCommand } from './commands.js';
import type { GuildScope } from './commands.js';
import { NOT_LINKED_TEXT, ephemeral } from './replies.js';
import { errorReply } from './errors.js';
import { modalForButton, submitIncidentModal } from './modals.js';

/** Raw interaction in, response out: the one handler behind both transports (HTTP and the gateway). */
export type InteractionHandler = (interaction: APIInteraction) => Promise<APIInteractionResponse>;

const NO_CHOICES: APIApplicationCommandAutocompleteResponse = {
  type: InteractionResponseType.ApplicationCommandAutocompleteResult,
  data: { choices: [] },
};

function describe(interaction: APIInteraction): string {
  switch (interaction.type) {
    case InteractionType.ApplicationCommand:
    case InteractionType.ApplicationCommandAutocomplete:
      return `command /${interaction.data.name}`;
    case InteractionType.MessageComponent:
    case InteractionType.ModalSubmit:
      return `${interaction.type === InteractionType.ModalSubmit ? 'form' : 'button'} ${interaction.data.custom_id}`;
    default:
      return 'interaction';
  }
}

async function scopeOf(ctx: DomainContext, interaction: APIInteraction): Promise<GuildScope | null> {
  const guildId = interaction.guild_id;
  const channelId = interaction.channel?.id ?? interaction.channel_id;
  if (!guildId || !channelId) return null;
  return {
    ctx,
    guildId,
    channel: { platform: 'discord', workspaceId: guildId, channelId },
    company: await companyForWorkspace(ctx, 'discord', guildId),
    permissions: BigInt(interaction.member?.permissions ?? '0'),
  };
}

export function createInteractionHandler(options: { ctx: DomainContext; logger: Logger }): InteractionHandler {
  const { ctx, logger } = options;

  async function handle(interaction: APIInteraction): Promise<APIInteractionResponse> {
    if (interaction.type === InteractionType.Ping) return { type: InteractionResponseType.Pong };
    const scope = await scopeOf(ctx, interaction);
    if (interaction.type === InteractionType.ApplicationCommandAutocomplete) {
      return scope ? autocomplete(scope, interaction.data) : NO_CHOICES;
    }
    if (!scope) return ephemeral('statusbot works in servers, not in direct messages.');
    switch (interaction.type) {
      case InteractionType.ApplicationCommand:
        if (interaction.data.type !== ApplicationCommandType.ChatInput) return ephemeral('statusbot has slash commands only.');
        return runCommand(scope, interaction.data);
      case InteractionType.MessageComponent:
        if (!scope.company) return ephemeral(NOT_LINKED_TEXT);
        return modalForButton(ctx, scope.company, interaction.data.custom_id);
      case InteractionType.ModalSubmit:
        if (!scope.company) return ephemeral(NOT_LINKED_TEXT);
        return submitIncidentModal(ctx, scope.company, interaction.data);
    }
  }

  return async (interaction) => {
    try {
      return await handle(interaction);
    } catch (error) {
      if (interaction.type === InteractionType.ApplicationCommandAutocomplete) {
        logger.error(`discord ${describe(interaction)} autocomplete failed`, error);
        return NO_CHOICES;
      }
      // Logged by what it was, never by its options: `/statusbot link` carries an API key.
      return errorReply(error, logger, describe(interaction));
    }
  };
}

/** The application's public key (64 hex digits, from the developer portal) as a key object. */
export function discordPublicKey(hex: string): KeyObject {
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error("DISCORD_PUBLIC_KEY must be the application's public key: 64 hex digits");
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
}

/** How far a request's timestamp may be from now: a captured request cannot be replayed later. */
export const SIGNATURE_MAX_AGE_SECONDS = 300;

/** Ed25519 over `timestamp + body`, as Discord signs interactions. */
export function verifyDiscordSignature(args: {
  key: KeyObject;
  signature: string | undefined;
  timestamp: string | undefined;
  body: Buffer;
  nowMilliseconds: number;
}): boolean {
  const { signature, timestamp } = args;
  if (!signature || !timestamp || !/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,15}$/.test(timestamp)) return false;
  if (Math.abs(args.nowMilliseconds / 1000 - Number(timestamp)) > SIGNATURE_MAX_AGE_SECONDS) return false;
  return verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), args.body]), args.key, Buffer.from(signature, 'hex'));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** HTTP interactions (the app's Interactions Endpoint URL): verified, then answered in the HTTP response. */
export function interactionsEndpoint(options: {
  publicKey: KeyObject;
  handler: InteractionHandler;
  now: () => number;
}): RawHandler {
  return async (req, res, body) => {
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: 'use POST' }, { Allow: 'POST' });
      return;
    }
    const signed = verifyDiscordSignature({
      key: options.publicKey,
      signature: header(req.headers['x-signature-ed25519']),
      timestamp: header(req.headers['x-signature-timestamp']),
      body,
      nowMilliseconds: options.now(),
    });
    if (!signed) {
      sendJson(res, 401, { error: 'invalid request signature' });
      return;
    }
    let interaction: unknown;
    try {
      interaction = JSON.parse(body.toString('utf8'));
    } catch {
      interaction = null;
    }
    if (interaction === null || typeof interaction !== 'object' || typeof (interaction as { type?: unknown }).type !== 'number') {
      sendJson(res, 400, { error: 'the body must be an interaction object' });
      return;
    }
    sendJson(res, 200, await options.handler(interaction as APIInteraction));
  };
}
