import type { ChatPlatform } from '../domain/model/channel.js';
import type { PublisherKind } from './publisher-kind.js';

/** A chat platform's publisher is made with its front (adapters/<platform>/publisher.ts), loaded only when the platform is on. */
const madeByFront = <P extends ChatPlatform>(platform: P) =>
  ({ kind: platform, create: ({ chat }) => chat.find((p) => p.name === platform) ?? null }) satisfies PublisherKind<P>;

export const slack = madeByFront('slack');
export const discord = madeByFront('discord');
