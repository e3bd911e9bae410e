import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Client, Events, GatewayDispatchEvents, GatewayIntentBits, InteractionType, Routes } from 'discord.js';
import type { APIInteraction, APIInteractionResponse, GatewayMessageReactionAddDispatchData } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { RawHandler } from '../../src/infrastructure/raw-handler.js';
import type { ClientAddress } from '../../src/infrastructure/client-address.js';
import type { ChatLimiter } from '../chat/chat-limits.js';
import type { ReplayGuard } from '../chat/replay-guard.js';
import { slowDown } from '../chat/wording.js';
import { DISCORD_API, describeDiscordFailure } from './client.js';
import { textResponse } from './render.js';

/**
 * What an interaction is answered with; `afterwards` runs once the response has
 * gone out, for what needs the interaction acknowledged first (a follow-up
 * message with a file, which no interaction response can carry over HTTP).
 * It never rejects: it reports its own failures.
 */
export interface InteractionAnswer {
  response: APIInteractionResponse;
  afterwards?: () => Promise<void>;
}

/** Raw interaction in, answer out: the one handler behind every receiver. */
export type InteractionHandler = (interaction: APIInteraction) => Promise<InteractionAnswer>;

/**
 * A transport of interactions, as Bolt's Receiver is for Slack: it only turns
 * what arrives into calls of the handler and sends back its response.
 */
export interface DiscordReceiver {
  /** Paths it answers on statusbot's own listener. */
  readonly rawHandlers: Readonly<Record<string, RawHandler>>;
  init(handler: InteractionHandler): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const INTERACTIONS_PATH = '/discord/interactions';

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

/** An ephemeral message in answer to a limited interaction: Discord shows any failure as "The application did not respond". */
const slowDownResponse = (seconds: number): APIInteractionResponse => textResponse(slowDown(seconds));

/** Interactions that act: not a PING, nor autocomplete, which is sent at every keystroke and changes nothing. */
const acts = (interaction: APIInteraction): boolean =>
  interaction.type !== InteractionType.Ping && interaction.type !== InteractionType.ApplicationCommandAutocomplete;

export interface HttpReceiverOptions {
  publicKey: string;
  now: () => number;
  clientAddress: ClientAddress;
  limits: ChatLimiter;
  replays: ReplayGuard;
}

/**
 * HTTP interactions (the app's Interactions Endpoint URL): limited per
 * address, verified, limited per guild, taken once, then answered in the HTTP
 * response.
 */
export function createHttpReceiver(options: HttpReceiverOptions): DiscordReceiver {
  const key = discordPublicKey(options.publicKey);
  let handler: InteractionHandler | null = null;
  const endpoint: RawHandler = async (req, res, body) => {
    const address = options.clientAddress(req);
    const addressWait = options.limits.address(address);
    if (addressWait > 0) {
      sendJson(res, 200, slowDownResponse(addressWait));
      return;
    }
    const timestamp = header(req.headers['x-signature-timestamp']);
    const signed = verifyDiscordSignature({
      key,
      signature: header(req.headers['x-signature-ed25519']),
      timestamp,
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
    if (interaction === null || typeof interaction !== 'object' || typeof (interaction as { type?: unknown }).type !== 'number' || !handler) {
      sendJson(res, 400, { error: 'the body must be an interaction object' });
      return;
    }
    const valid = interaction as APIInteraction;
    if (acts(valid)) {
      const workspace = valid.guild_id ?? `user:${valid.user?.id ?? valid.member?.user.id ?? 'unknown'}`;
      const workspaceWait = options.limits.workspace(workspace);
      if (workspaceWait > 0) {
        sendJson(res, 200, slowDownResponse(workspaceWait));
        return;
      }
      const about = { path: req.url, address, workspace };
      // Discord never sends an interaction twice: a repeat is someone else's, answered as a forgery.
      if (!(await options.replays.firstSight({ signed: [timestamp!, body], timestamp: Number(timestamp), about }))) {
        sendJson(res, 401, { error: 'invalid request signature' });
        return;
      }
    }
    const answer = await handler(valid);
    const { afterwards } = answer;
    if (afterwards) res.once('finish', () => void afterwards());
    sendJson(res, 200, answer.response);
  };
  return {
    rawHandlers: { [INTERACTIONS_PATH]: endpoint },
    init(h) {
      handler = h;
    },
    // The listener belongs to statusbot; there is nothing to open or close.
    async start() {},
    async stop() {},
  };
}

/**
 * Interactions over the gateway (a discord.js Client), for hosts without a
 * public HTTPS endpoint: each raw INTERACTION_CREATE goes through the same
 * handler, and its response is posted to the interaction callback.
 */
export function createGatewayReceiver(options: {
  env: NonNullable<ChatEnv['discord']>;
  logger: Logger;
  /** Reactions to messages in the guilds' channels (📌 in an incident's room). */
  onReaction?: (reaction: GatewayMessageReactionAddDispatchData) => Promise<void>;
}): DiscordReceiver {
  const { env, logger } = options;
  let handler: InteractionHandler | null = null;
  let client: Client | null = null;

  async function respond(gateway: Client, interaction: APIInteraction): Promise<void> {
    if (!handler) return;
    const answer = await handler(interaction);
    // The callback is authorized by the interaction's token, not the bot's.
    await gateway.rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body: answer.response, auth: false });
    await answer.afterwards?.();
  }

  return {
    rawHandlers: {},
    init(h) {
      handler = h;
    },
    async start() {
      const intents = options.onReaction ? [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessageReactions] : [GatewayIntentBits.Guilds];
      const gateway = new Client({ intents, rest: { api: env.apiUrl ?? DISCORD_API } });
      const { onReaction } = options;
      if (onReaction) {
        gateway.ws.on(GatewayDispatchEvents.MessageReactionAdd, (reaction: GatewayMessageReactionAddDispatchData) => {
          onReaction(reaction).catch((error: unknown) => logger.error('discord gateway reaction could not be handled', error));
        });
      }
      gateway.ws.on(GatewayDispatchEvents.InteractionCreate, (interaction: APIInteraction) => {
        respond(gateway, interaction).catch((error: unknown) => logger.error('discord gateway interaction could not be answered', error));
      });
      gateway.on(Events.Error, (error) => logger.error('discord gateway error', error));
      gateway.once(Events.ClientReady, (ready) => logger.info(`discord gateway connected as ${ready.user.tag}`));
      client = gateway;
      // Not awaited: statusbot serves its API while Discord is unreachable; discord.js reconnects once connected.
      void gateway.login(env.token).then(
        () => undefined,
        (error: unknown) => {
          if (client !== gateway) return;
          const problem = describeLoginFailure(error, env);
          if (problem) logger.error(`discord: the gateway login failed: ${problem}; interactions arrive over HTTP only`);
          else logger.error('discord gateway login failed; interactions arrive over HTTP only', error);
        },
      );
    },
    async stop() {
      const gateway = client;
      client = null;
      // Destroying ends a login or a reconnection under way; waiting for the login first would wait for Discord.
      await gateway?.destroy();
    },
  };
}

/**
 * Why the gateway login failed, in one line naming what to check; null for what nobody foresaw (its stack is logged).
 * discord.js turns Discord's 401 for the token into its own TokenInvalid error, whose message names no variable.
 */
function describeLoginFailure(error: unknown, env: NonNullable<ChatEnv['discord']>): string | null {
  if ((error as { code?: unknown } | null)?.code === 'TokenInvalid') {
    return `Discord refused DISCORD_TOKEN (401 Unauthorized at ${env.apiUrl ?? DISCORD_API}); check DISCORD_TOKEN: the bot's token from the Developer Portal (Bot, Reset Token), without "Bot " before it, and DISCORD_API_URL`;
  }
  return describeDiscordFailure(error, env);
}
