import type { Dispatcher } from 'undici';
import type { DestinationLimits } from '../config/destination-limits.js';
import type { DomainContext } from '../domain/context.js';
import type { PostJson } from './destination-client.js';
import type { Publisher } from './publisher.js';

/** What the process gives every kind of destination to make its publisher with. */
export interface PublisherSettings {
  ctx: DomainContext;
  /** The outbound dispatcher of addresses that come from the config: the private-target guard applies to each. */
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Fired when the process stops: a request under way ends with StoppingError. */
  stop: AbortSignal;
  /** How hard one destination is driven. */
  limits: DestinationLimits;
  /** Where mail goes; null: mail waits in the outbox until it is configured. */
  smtp: { url: string; from: string } | null;
  /** Waits between tries while the mail server cannot be reached. */
  unreachableDelay: { firstMs: number; maxMs: number };
  /** The publishers of the chat platforms on in this process, made with their fronts. */
  chat: readonly Publisher[];
}

/** The same, with the one JSON client of pagers and chat APIs. */
export interface PublisherDeps extends PublisherSettings {
  post: PostJson;
}

/**
 * One kind of destination, one file each: how its publisher is made. Null
 * when the kind is off in this process (mail without smtp, a chat platform
 * without credentials): its rows wait in the outbox.
 */
export interface PublisherKind<K extends string = string> {
  readonly kind: K;
  create(deps: PublisherDeps): Publisher | null;
}
