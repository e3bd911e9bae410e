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

/** The connection to Slack: the stop aborts it, and with it every call under way and the socket's retries. */
interface SlackConnection {
  readonly signal: AbortSignal;
  abort(): void;
  /** A fetch whose calls end at the stop. */
  readonly fetch: webApi.FetchFunction;
  /** Throws once stopped: p-retry then ends the Socket Mode client's retries. */
  stopRetrying(): void;
}

function createConnection(): SlackConnection {
  const connection = new AbortController();
  return {
    signal: connection.signal,
    abort: () => connection.abort(),
    fetch: (url, init) =>
      fetch(url, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, connection.signal]) : connection.signal,
      } as RequestInit) as unknown as ReturnType<webApi.FetchFunction>,
    stopRetrying: () => {
      if (connection.signal.aborted) throw connection.signal.reason;
    },
  };
}

/** What a start leaves for the stop to wait for, and who the bot is once known. */
interface SlackSession {
  // Who the bot is, learnt at start; commands never wait on it, so a Slack hiccup then costs nothing later.
  identity: { botId?: string; botUserId?: string };
  signingIn: Promise<void> | null;
  connecting: Promise<void> | null;
}

/** Bolt's receiver: Socket Mode when an app token is set, else Bolt on statusbot's own listener. */
type SlackReceivers = { receiver: Receiver; http: SlackHttpReceiver | null; socket: SocketModeReceiver | null };

function createReceivers(options: SlackFrontOptions, logger: BoltLogger, slackApiUrl: string | undefined, connection: SlackConnection): SlackReceivers {
  const { ctx, env } = options;
  if (env.appToken) {
    // Its own options object: the Socket Mode client keeps retrying apps.connections.open, as it should when reconnecting.
    // Its retries are the Socket Mode client's own (100, ever slower), and stop at the stop (p-retry ends on a throwing onFailedAttempt).
    const retryConfig = { retries: 100, factor: 1.3, onFailedAttempt: connection.stopRetrying } as webApi.RetryOptions;
    const socketClientOptions = { ...(slackApiUrl ? { slackApiUrl } : {}), timeout: 10_000, fetch: connection.fetch, retryConfig };
    const socket = new SocketModeReceiver({ appToken: env.appToken, logger, installerOptions: { clientOptions: socketClientOptions } });
    return { receiver: socket, http: null, socket };
  }
  if (env.signingSecret) {
    // Date.now, as Bolt's signature check: the replay window is the signature's.
    const http = new SlackHttpReceiver({
      signingSecret: env.signingSecret,
      logger,
      clientAddress: options.clientAddress,
      limits: createChatLimiter({ rateLimit: options.rateLimit, now: Date.now }),
      replays: createReplayGuard({ ctx, platform: 'slack', logger: options.logger, now: Date.now }),
    });
    return { receiver: http, http, socket: null };
  }
  throw new Error('Slack needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)');
}

/** The Bolt app with statusbot's commands, forms and reactions. */
function createApp(options: SlackFrontOptions, receiver: Receiver, logger: BoltLogger, slackApiUrl: string | undefined, session: SlackSession): App {
  const { ctx, env } = options;
  const clientOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    // A trigger_id lives 3 seconds: waiting out a rate limit or retrying later helps nobody.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  };
  const app = new App({
    receiver,
    authorize: async () => ({ botToken: env.botToken, ...session.identity }),
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
  registerCommands(app, deps);
  registerModals(app, deps);
  registerReactions(app, deps);
  return app;
}

/**
 * The Slack front: Bolt with a receiver on statusbot's own listener (HTTP
 * mode), or Bolt's Socket Mode receiver when an app token is set; and the
 * publisher of the outbox rows of Slack channels.
 */
export async function createSlackFront(options: SlackFrontOptions): Promise<ChatFront> {
  const { ctx, env } = options;
  const slackApiUrl = apiBase(env.apiUrl);
  const connection = createConnection();
  const logger = boltLogger(options.logger, connection.signal);
  const receivers = createReceivers(options, logger, slackApiUrl, connection);
  const deliveryClient = createDeliveryClient({ botToken: env.botToken, slackApiUrl, logger });
  const identityClient = createDeliveryClient({ botToken: env.botToken, slackApiUrl, logger, fetch: connection.fetch });
  const session: SlackSession = { identity: {}, signingIn: null, connecting: null };
  const app = createApp(options, receivers.receiver, logger, slackApiUrl, session);
  return {
    name: 'slack',
    rawHandlers: receivers.http ? { [SLACK_EVENTS_PATH]: receivers.http.handler } : {},
    publisher: createSlackPublisher({ client: deliveryClient, rooms: roomHooks(ctx) }),
    async start() {
      session.signingIn = signIn(identityClient, session, connection, options.logger);
      // Signed in before the start goes on, unless Slack is slow: then the start does not wait (nor would a stop).
      await Promise.race([session.signingIn, new Promise((resolve) => setTimeout(resolve, SIGN_IN_WAIT_MS).unref())]);
      if (!env.appToken) {
        await app.start();
        options.logger.info(`slack: answering on ${SLACK_EVENTS_PATH}`);
        return;
      }
      // Connecting may retry for a long while; the API and the other fronts need not wait for Slack.
      session.connecting = connectSocket(app, connection, options.logger);
    },
    async stop() {
      connection.abort();
      // Bolt's stop does not wait for the WebSocket's close handshake; the client's disconnect does.
      if (receivers.socket) await receivers.socket.client.disconnect();
      else await app.stop();
      // Both end at once once aborted, but for a reconnection that was waiting out its delay: that one never settles.
      await Promise.race([Promise.all([session.signingIn, session.connecting]), new Promise((resolve) => setTimeout(resolve, 100))]);
    },
  };
}

/** Learns who the bot is (auth.test); a failure is told, not fatal: deliveries fail and retry on their own, and commands need no identity. */
function signIn(client: ReturnType<typeof createDeliveryClient>, session: SlackSession, connection: SlackConnection, logger: Logger): Promise<void> {
  return client.auth.test().then(
    (me) => {
      session.identity = { ...(me.bot_id ? { botId: me.bot_id } : {}), ...(me.user_id ? { botUserId: me.user_id } : {}) };
      logger.info(`slack: signed in as ${me.user ?? '?'} in workspace ${me.team ?? '?'} (${me.team_id ?? '?'})`);
    },
    (error: unknown) => {
      if (connection.signal.aborted) return;
      const problem = describeSlackFailure(error);
      if (problem) logger.error(`slack: auth.test failed: ${problem}; check SLACK_BOT_TOKEN (and SLACK_API_URL)`);
      else logger.error('slack: auth.test failed; check SLACK_BOT_TOKEN', error);
    },
  );
}

/** Opens the Socket Mode connection, telling how it went. */
function connectSocket(app: App, connection: SlackConnection, logger: Logger): Promise<void> {
  return app.start().then(
    () => logger.info('slack: connected in Socket Mode'),
    (error: unknown) => {
      if (connection.signal.aborted) return;
      const problem = describeSlackFailure(error);
      if (problem) logger.error(`slack: Socket Mode could not connect: ${problem}; check SLACK_APP_TOKEN`);
      else logger.error('slack: Socket Mode could not connect; check SLACK_APP_TOKEN', error);
    },
  );
}
