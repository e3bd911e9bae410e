import { z } from 'zod';
import { DEFAULT_OPSGENIE_URL, DEFAULT_PAGERDUTY_URL, DEFAULT_TELEGRAM_API_URL, NOTIFY_KINDS } from '../domain/notifications/notify-destination.js';
import type { NotifyDestinationSpec } from '../domain/notifications/notify-destination.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** A secret: its value is never repeated in an error. */
const secret = (what: string) =>
  z
    .string({ error: `must be the ${what}, a string` })
    .trim()
    .min(1, { error: `must be the ${what}` })
    .max(512, { error: 'is too long (512 characters at most)' })
    .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' });

const pagerduty = z.strictObject({ routing_key: secret('integration key of an Events API v2 integration'), url: httpUrl.default(DEFAULT_PAGERDUTY_URL) });
const opsgenie = z.strictObject({ api_key: secret('API key of an Opsgenie API integration'), url: httpUrl.default(DEFAULT_OPSGENIE_URL) });
const teams = z.strictObject({ webhook: httpUrl });
const telegram = z.strictObject({
  bot_token: secret('token BotFather gave the bot').regex(/^\d+:[A-Za-z0-9_-]+$/, { error: 'must be a bot token such as 123456:ABC-DEF…' }),
  /** A chat's numeric id (groups and channels: -100…) or a public channel's @name. */
  chat_id: z
    .union([z.int(), z.string().trim()])
    .transform(String)
    .pipe(z.string().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, { error: 'must be a chat id such as -1001234567890, or @channelname' })),
  api_url: httpUrl.default(DEFAULT_TELEGRAM_API_URL),
});

const KINDS = `${NOTIFY_KINDS.slice(0, -1).join(', ')} or ${NOTIFY_KINDS.at(-1)}`;

/**
 * One entry of a company's `notify`: an object of exactly one key, the
 * destination's kind, as in `{ pagerduty: { routing_key: … } }`.
 */
export const notifyDestination = z
  .strictObject({ pagerduty: pagerduty.optional(), opsgenie: opsgenie.optional(), teams: teams.optional(), telegram: telegram.optional() })
  .refine((d) => NOTIFY_KINDS.filter((k) => d[k] !== undefined).length === 1, { error: `needs exactly one of ${KINDS}` })
  .transform((d): NotifyDestinationSpec => {
    if (d.pagerduty) return { kind: 'pagerduty', ...d.pagerduty };
    if (d.opsgenie) return { kind: 'opsgenie', ...d.opsgenie };
    if (d.teams) return { kind: 'teams', ...d.teams };
    return { kind: 'telegram', ...d.telegram! };
  });
