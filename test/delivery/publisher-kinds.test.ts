import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DESTINATION_LIMITS } from '../../src/config/destination-limits.js';
import type { Publisher } from '../../src/delivery/publisher.js';
import { PUBLISHER_KINDS, createPublishers } from '../../src/delivery/publisher-kinds.js';
import type { PublisherSettings } from '../../src/delivery/publisher-kind.js';
import { CHAT_PLATFORMS } from '../../src/domain/model/channel.js';
import type { DomainContext } from '../../src/domain/context.js';
import { EMAIL_STREAM_PREFIX } from '../../src/domain/notifications/email-notifications.js';
import { NOTIFY_KINDS, destinationStream } from '../../src/domain/notifications/notify-destination.js';
import { checkedValues, configKeys } from '../helpers/declared-kinds.js';

const registered = Object.keys(PUBLISHER_KINDS).sort();

/** A chat front's publisher, as the registry finds it among those the fronts made. */
const chatPublisher = (platform: string): Publisher => ({
  name: platform,
  streamPrefix: `${platform}:`,
  minIntervalMs: () => 0,
  deliver: async () => undefined,
});

/** Making a publisher reaches nothing: the context, the dispatcher and the mail server are used only by deliveries. */
const settings = (on: boolean): PublisherSettings => ({
  ctx: {} as DomainContext,
  dispatcher: {} as Dispatcher,
  timeoutMs: 1_000,
  stop: new AbortController().signal,
  limits: DEFAULT_DESTINATION_LIMITS,
  smtp: on ? { url: 'smtp://127.0.0.1:2525', from: 'status@example.com' } : null,
  unreachableDelay: { firstMs: 1_000, maxMs: 60_000 },
  chat: on ? CHAT_PLATFORMS.map(chatPublisher) : [],
});

describe('the registry of publishers', () => {
  it('has one entry for every destination kind the config, the database and the chat platforms declare, and no other', async () => {
    const notify = configKeys(['companies', 'notify']);
    expect(notify).toEqual([...NOTIFY_KINDS].sort());
    expect(notify).toEqual(await checkedValues('notify_destinations', 'kind'));
    expect(registered).toEqual(['webhook', 'email', ...notify, ...CHAT_PLATFORMS].sort());
  });

  it('holds each kind under its name, and its publisher is named after it', () => {
    const publishers = createPublishers(settings(true));
    for (const publisher of publishers) publisher.close?.();
    expect(Object.entries(PUBLISHER_KINDS).every(([kind, entry]) => entry.kind === kind)).toBe(true);
    expect(publishers.map((p) => p.name)).toEqual(Object.keys(PUBLISHER_KINDS));
  });

  it('takes every stream of the outbox by one prefix, and no prefix of another', () => {
    const publishers = createPublishers(settings(true));
    for (const publisher of publishers) publisher.close?.();
    const prefixOf = (name: string) => publishers.find((p) => p.name === name)?.streamPrefix;
    expect(prefixOf('webhook')).toBe('subscriber:');
    expect(prefixOf('email')).toBe(EMAIL_STREAM_PREFIX);
    for (const kind of NOTIFY_KINDS) expect(destinationStream(kind, 7).startsWith(prefixOf(kind)!)).toBe(true);
    for (const platform of CHAT_PLATFORMS) expect(prefixOf(platform)).toBe(`${platform}:`);
    for (const a of publishers) for (const b of publishers) if (a !== b) expect(b.streamPrefix.startsWith(a.streamPrefix)).toBe(false);
  });

  it('leaves out mail without smtp, and the chat platforms that are off', () => {
    expect(createPublishers(settings(false)).map((p) => p.name)).toEqual(['webhook', ...NOTIFY_KINDS]);
  });
});
