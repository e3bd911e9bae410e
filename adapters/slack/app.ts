import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { Logger as BoltLogger, Receiver, webApi } from '@slack/bolt';
import type { ChatEnv } from '../../src/config/env.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { ClientAddress } from '../../src/infrastructure/client-address.js';
import type { ChatFront } from '../chat/chat-front.js';
import { createChatLimiter } from '../chat/chat-limits.js';
import type { ChatRateLimit } from '../chat/chat-limits.js';
import { createReplayGuard } from '../chat/replay-guard.js';
import { roomHooks } from '../chat/room-hooks.js';
import { apiBase, createDeliveryClient, describeSlackFailure } from './client.js';
import { registerCommands } from './commands.js';
import { registerModals } from './modals.js';
import { registerReactions } from './reactions.js';
import { createSlackPublisher } from './publisher.js';
import { SlackHttpReceiver } from './receiver.js';

export interface SlackFrontOptions {
  ctx: DomainContext;
  env: NonNullable<ChatEnv['slack']>;
  logger: Logger;
  /** Who sent a request to /slack/events, for its per-address limit. */
  clientAddress: ClientAddress;
  rateLimit: ChatRateLimit;
}

export const SLACK_EVENTS_PATH = '/slack/events';

/** How long the start waits for auth.test before it goes on without the bot's identity. */
const SIGN_IN_WAIT_MS = 2_000;

/**
 * Bolt's logger interface over statusbot's; Bolt's debug output carries request bodies and is dropped,
 * and so is what it says of the calls the stop aborted.
 */
function boltLogger(logger: Logger, stopped: AbortSignal): BoltLogger {
  let level = LogLevel.INFO;
  return {
    debug: () => {},
    info: (...message) => logger.info(`slack: ${message.join(' ')}`),
    warn: (...message) => stopped.aborted || logger.warn(`slack: ${message.join(' ')}`),
    error: (...message) => stopped.aborted || logger.error(`slack: ${message.map(String).join(' ')}`),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/**
 * The Slack front: Bolt with a receiver on statusbot's own listener (HTTP
 * mode), or Bolt's Socket Mode receiver when an app token is set; and the
 * publisher of the outbox rows of Slack channels.
 */
export async function createSlackFront(options: SlackFrontOptions): Promise<ChatFront> {
  const { ctx, env } = options;
  const slackApiUrl = apiBase(env.apiUrl);
  const clientOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    // A trigger_id lives 3 seconds: waiting out a rate limit or retrying later helps nobody.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  };

  // Fired by stop: a call to Slack under way (signing in, opening the socket) ends, and so do the socket's retries.
  const connection = new AbortController();
  const connectionFetch: webApi.FetchFunction = (url, init) =>
    fetch(url, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, connection.signal]) : connection.signal,
    } as RequestInit) as unknown as ReturnType<webApi.FetchFunction>;
  const stopRetrying = () => {
    if (connection.signal.aborted) throw connection.signal.reason;
  };
  const logger = boltLogger(options.logger, connection.signal);

  let httpReceiver: SlackHttpReceiver | null = null;
  let socketReceiver: SocketModeReceiver | null = null;
  let receiver: Receiver;
  if (env.appToken) {
    // Its own options object: the Socket Mode client keeps retrying apps.connections.open, as it should when reconnecting.
    // Its retries are the Socket Mode client's own (100, ever slower), and stop at the stop (p-retry ends on a throwing onFailedAttempt).
    const retryConfig = { retries: 100, factor: 1.3, onFailedAttempt: stopRetrying } as webApi.RetryOptions;
    const socketClientOptions = { ...(slackApiUrl ? { slackApiUrl } : {}), timeout: 10_000, fetch: connectionFetch, retryConfig };
    socketReceiver = new SocketModeReceiver({ appToken: env.appToken, logger, installerOptions: { clientOptions: socketClientOptions } });
    receiver = socketReceiver;
  } else if (env.signingSecret) {
    // Date.now, as Bolt's signature check: the replay window is the signature's.
    httpReceiver = new SlackHttpReceiver({
      signingSecret: env.signingSecret,
      logger,
      clientAddress: options.clientAddress,
      limits: createChatLimiter({ rateLimit: options.rateLimit, now: Date.now }),
      replays: createReplayGuard({ ctx, platform: 'slack', logger: options.logger, now: Date.now }),
    });
    receiver = httpReceiver;
  } else {
    throw new Error('Slack needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)');
  }

  const deliveryClient = createDeliveryClient({ botToken: env.botToken, slackApiUrl, logger });
  const identityClient = createDeliveryClient({ botToken: env.botToken, slackApiUrl, logger, fetch: connectionFetch });
  // Who the bot is, learnt at start; commands never wait on it, so a Slack hiccup then costs nothing later.
  let identity: { botId?: string; botUserId?: string } = {};

  const app = new App({
    receiver,
    authorize: async () => ({ botToken: env.botToken, ...identity }),
    clientOptions,
    logger,
    convoStore: false,
    // The app handles no message events (only reactions, of anyone), so there is nothing of its own to ignore.
    ignoreSelf: false,
  });
  app.error(async (error) => {
    options.logger.error('slack: a listener failed', error);
  });

  const deps = { ctx, logger: options.logger };
  let connecting: Promise<void> | null = null;
  let signingIn: Promise<void> | null = null;
  registerCommands(app, deps);
  registerModals(app, deps);
  registerReactions(app, deps);

  return {
    name: 'slack',
    rawHandlers: httpReceiver ? { [SLACK_EVENTS_PATH]: httpReceiver.handler } : {},
    publisher: createSlackPublisher({ client: deliveryClient, rooms: roomHooks(ctx) }),
    async start() {
      signingIn = identityClient.auth.test().then(
        (me) => {
          identity = { ...(me.bot_id ? { botId: me.bot_id } : {}), ...(me.user_id ? { botUserId: me.user_id } : {}) };
          options.logger.info(`slack: signed in as ${me.user ?? '?'} in workspace ${me.team ?? '?'} (${me.team_id ?? '?'})`);
        },
        (error: unknown) => {
          // Not fatal: deliveries fail and retry on their own, and commands need no identity.
          if (connection.signal.aborted) return;
          const problem = describeSlackFailure(error);
          if (problem) options.logger.error(`slack: auth.test failed: ${problem}; check SLACK_BOT_TOKEN (and SLACK_API_URL)`);
          else options.logger.error('slack: auth.test failed; check SLACK_BOT_TOKEN', error);
        },
      );
      // Signed in before the start goes on, unless Slack is slow: then the start does not wait (nor would a stop).
      await Promise.race([signingIn, new Promise((resolve) => setTimeout(resolve, SIGN_IN_WAIT_MS).unref())]);
      if (!env.appToken) {
        await app.start();
        options.logger.info(`slack: answering on ${SLACK_EVENTS_PATH}`);
        return;
      }
      // Connecting may retry for a long while; the API and the other fronts need not wait for Slack.
      connecting = app.start().then(
        () => options.logger.info('slack: connected in Socket Mode'),
        (error: unknown) => {
          if (connection.signal.aborted) return;
          const problem = describeSlackFailure(error);
          if (problem) options.logger.error(`slack: Socket Mode could not connect: ${problem}; check SLACK_APP_TOKEN`);
          else options.logger.error('slack: Socket Mode could not connect; check SLACK_APP_TOKEN', error);
        },
      );
    },
    async stop() {
      connection.abort();
      // Bolt's stop does not wait for the WebSocket's close handshake; the client's disconnect does.
      if (socketReceiver) await socketReceiver.client.disconnect();
      else await app.stop();
      // Both end at once once aborted, but for a reconnection that was waiting out its delay: that one never settles.
      await Promise.race([Promise.all([signingIn, connecting]), new Promise((resolve) => setTimeout(resolve, 100))]);
    },
  };
}
