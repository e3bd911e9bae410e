import type { ChatPlatform } from '../domain/model/channel.js';
import type { NotifyKind } from '../domain/notifications/notify-destination.js';
import { discord, slack } from './chat-publishers.js';
import { createDestinationClient } from './destination-client.js';
import { email } from './email-publisher.js';
import { opsgenie } from './opsgenie-publisher.js';
import { pagerduty } from './pagerduty-publisher.js';
import type { Publisher } from './publisher.js';
import type { PublisherKind, PublisherSettings } from './publisher-kind.js';
import { teams } from './teams-publisher.js';
import { telegram } from './telegram-publisher.js';
import { webhook } from './webhook-publisher.js';

/** Every kind of destination the outbox delivers to: status page subscribers' webhooks and mail, a company's pagers and chats, chat channels. */
export type DestinationKind = 'webhook' | 'email' | NotifyKind | ChatPlatform;

/** Every kind of destination, one line each: the compiler holds it to DestinationKind, each entry under its own name. */
export const PUBLISHER_KINDS = { webhook, email, pagerduty, opsgenie, teams, telegram, slack, discord } as const satisfies {
  readonly [K in DestinationKind]: PublisherKind<K>;
};

/** The publishers of every kind on in this process; pagers and chat APIs share one JSON client. */
export function createPublishers(settings: PublisherSettings): Publisher[] {
  const post = createDestinationClient({ dispatcher: settings.dispatcher, timeoutMs: settings.timeoutMs, stop: settings.stop });
  const deps = { ...settings, post };
  return Object.values(PUBLISHER_KINDS).flatMap((kind: PublisherKind) => kind.create(deps) ?? []);
}
