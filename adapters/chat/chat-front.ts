import type { Publisher } from '../../src/delivery/publisher.js';
import type { RawHandler } from '../../src/infrastructure/raw-handler.js';
import type { ChatPlatform } from '../../src/domain/model/channel.js';

/**
 * A chat platform as the composition root sees it: the HTTP paths it answers
 * on statusbot's listener, the publisher that delivers its outbox rows, and
 * its own connections (Socket Mode, the gateway) to start and stop.
 */
export interface ChatFront {
  readonly name: ChatPlatform;
  /** Webhooks by path; the listener serves each as a POST route and answers other methods itself. */
  readonly rawHandlers: Readonly<Record<string, RawHandler>>;
  readonly publisher: Publisher;
  start(): Promise<void>;
  stop(): Promise<void>;
}
