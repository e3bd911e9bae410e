import { subjectName, threadIdOf } from '../domain/notifications/notify-destination.js';
import type { DestinationNotification } from '../domain/notifications/notify-destination.js';
import { failureOf, isSuccess, jsonOf, orderedStream } from './destination-client.js';
import type { DestinationPublisherOptions, Target } from './destination-client.js';
import { destinationSettings, firstMessageOf, rememberFirstMessage } from './destination-store.js';
import { clipWithEllipsis } from '../domain/clip-text.js';
import { changeText, headline, statusLine } from './notify-text.js';
import { writeMarkdown } from './update-markdown.js';
import type { MarkupWriter } from './update-markdown.js';
import { DeliveryFailure } from './publisher.js';
import type { Delivery, DeliveryRecorder, Publisher } from './publisher.js';
import type { PublisherKind } from './publisher-kind.js';

/** Text as Telegram's HTML parse mode reads it literally. */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const link = (href: string, text: string): string => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

/** Markdown of an update in the tags Telegram's HTML parse mode reads; the rest escaped. */
const TELEGRAM_HTML: MarkupWriter = {
  text: escapeHtml,
  code: (t) => `<code>${escapeHtml(t)}</code>`,
  bold: (inner) => `<b>${inner}</b>`,
  italic: (inner) => `<i>${inner}</i>`,
  link: (url, inner) => `<a href="${escapeHtml(url)}">${inner}</a>`,
  pre: (t) => `<pre>${escapeHtml(t)}</pre>`,
  item: (marker, inner) => `${marker} ${inner}`,
};

/** An update's text, its Markdown (bold, italics, code, links, lists) as Telegram HTML. */
export const telegramHtml = (markdown: string): string => writeMarkdown(markdown, TELEGRAM_HTML);

/** Telegram's limit of a message's text, after entities are parsed; the description gives way. */
const MAX_TEXT = 4096;

/** The message of a change, in Telegram's HTML: headline, title, status and service, the update's text, links. */
export function telegramText(n: DestinationNotification): string {
  const icon = n.action === 'resolve' ? '✅' : n.incident.severity === 'major' ? '🔴' : '🟠';
  const head = `${icon} <b>${escapeHtml(headline(n))}: ${escapeHtml(n.incident.title)}</b>\n${escapeHtml(statusLine(n))} · ${escapeHtml(subjectName(n))}`;
  const links = [
    link(n.incident.tracker_url, n.monitor ? 'Monitor' : 'Incident'),
    ...(n.incident.status_page_url ? [link(n.incident.status_page_url, 'Status page')] : []),
  ].join(' · ');
  const room = MAX_TEXT - head.length - links.length - 200;
  const raw = changeText(n);
  const text = clipWithEllipsis(raw, Math.max(1, room));
  return [head, ...(text ? [telegramHtml(text)] : []), links].join('\n\n');
}

/**
 * The Telegram Bot API's sendMessage, to one chat: the incident's first
 * message, then each later one as a reply to it. The message id is recorded
 * as a step of the row before anything else, so a retry never posts twice;
 * a 429 waits its `parameters.retry_after`.
 */
export function createTelegramPublisher(options: DestinationPublisherOptions): Publisher {
  const { ctx } = options;
  const settingsOf = destinationSettings(ctx, 'telegram');
  return {
    ...orderedStream('telegram', options.perSecond),
    async deliver(delivery: Delivery, recorder: DeliveryRecorder) {
      const { id, bot_token, chat_id, api_url } = await settingsOf(delivery.stream);
      const n = delivery.payload as DestinationNotification;
      let sent = delivery.progress.message;
      if (sent === undefined) {
        const replyTo = await firstMessageOf(ctx, id, threadIdOf(n));
        const base = api_url.replace(/\/+$/, '');
        const target: Target = { url: `${base}/bot${bot_token}/sendMessage`, shown: `${base}/bot…/sendMessage`, secrets: [bot_token] };
        const body = {
          chat_id,
          text: telegramText(n),
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          ...(replyTo ? { reply_parameters: { message_id: Number(replyTo), allow_sending_without_reply: true } } : {}),
        };
        const response = await options.post(target, body, {}, delivery.signal);
        const answer = jsonOf(response);
        const result = answer?.result as { message_id?: unknown } | undefined;
        if (!isSuccess(response) || answer?.ok !== true) {
          const parameters = answer?.parameters as { retry_after?: unknown; migrate_to_chat_id?: unknown } | undefined;
          const description = typeof answer?.description === 'string' ? answer.description : null;
          const moved = parameters?.migrate_to_chat_id === undefined ? '' : `; the group is now the chat ${String(parameters.migrate_to_chat_id)}`;
          const retryAfter = typeof parameters?.retry_after === 'number' ? parameters.retry_after : null;
          throw failureOf(target, response, description ? `${description}${moved}` : null, retryAfter);
        }
        if (typeof result?.message_id !== 'number') throw new DeliveryFailure(`POST ${target.shown}: the answer names no message_id`);
        sent = String(result.message_id);
        await recorder.step('message', sent);
      }
      // Kept only where none is yet: every later message replies to the incident's first.
      await rememberFirstMessage(ctx, id, threadIdOf(n), sent);
    },
  };
}

export const telegram = {
  kind: 'telegram',
  create: ({ ctx, post, limits }) => createTelegramPublisher({ ctx, post, perSecond: limits.perSecond }),
} satisfies PublisherKind<'telegram'>;
