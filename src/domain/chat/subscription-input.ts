import { validate as validCron } from 'node-cron';
import { z } from 'zod';

export const DEFAULT_DIGEST_SCHEDULE = '0 9 * * 1-5';
export const DEFAULT_DIGEST_TIMEZONE = 'UTC';

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const name = z.string().trim().min(1).max(200);

/** How a board's digest is posted to a channel. */
export const digestSettings = {
  schedule: z
    .string()
    .trim()
    .refine((s) => validCron(s), { error: 'must be a cron expression such as "0 9 * * 1-5"' })
    .default(DEFAULT_DIGEST_SCHEDULE),
  timezone: z.string().trim().refine(validTimezone, { error: 'must be an IANA time zone such as Europe/Berlin' }).default(DEFAULT_DIGEST_TIMEZONE),
  only_on_change: z.boolean().default(false),
  edit_in_place: z.boolean().default(false),
};

const TARGETS = { error: 'must be one of incidents, service, monitor, board' };

/** What a channel can follow; the same input from config, Slack and Discord. */
export const subscriptionInput = z.discriminatedUnion(
  'target',
  [
    z.strictObject({ target: z.literal('incidents') }),
    z.strictObject({ target: z.literal('service'), service: name }),
    /** `monitor` is the monitor's id or name. */
    z.strictObject({ target: z.literal('monitor'), monitor: name }),
    /** `board` is the board's id or urlname. */
    z.strictObject({ target: z.literal('board'), board: name, ...digestSettings }),
  ],
  TARGETS,
);
export type SubscriptionInput = z.output<typeof subscriptionInput>;

/** Unsubscribing names the target only. */
export const unsubscriptionInput = z.discriminatedUnion(
  'target',
  [
    z.strictObject({ target: z.literal('incidents') }),
    z.strictObject({ target: z.literal('service'), service: name }),
    z.strictObject({ target: z.literal('monitor'), monitor: name }),
    z.strictObject({ target: z.literal('board'), board: name }),
  ],
  TARGETS,
);
export type UnsubscriptionInput = z.output<typeof unsubscriptionInput>;
