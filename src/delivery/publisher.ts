/** One outbox row as a publisher sees it. */
export interface Delivery {
  id: number;
  stream: string;
  event: string;
  subscriberId: number | null;
  /** The row's payload, parsed. */
  payload: unknown;
  /** The raw payload text, as stored (webhooks send it byte for byte). */
  body: string;
  attempts: number;
  /** Steps of this delivery the platform already confirmed, from earlier attempts. */
  progress: Readonly<Record<string, string>>;
  /** The same on every attempt of this row and on no other row: receivers deduplicate by it. */
  idempotencyKey: string;
  /** Fires when the delivery must end: its deadline passed, or another process took its lease over. */
  signal: AbortSignal;
}

/** What a publisher may record while it delivers, so that a retry neither repeats nor loses a step. */
export interface DeliveryRecorder {
  /** Marks a step done (with a value, such as a message id) before the next one starts. */
  step(name: string, value: string): Promise<void>;
  /** The message that shows a subject in a channel, for editing in place. */
  messageOf(channelId: string, subject: string): Promise<string | null>;
  rememberMessage(channelId: string, subject: string, messageId: string): Promise<void>;
}

/** A destination: Slack, Discord, webhooks, mail, or a company's pager or chat (PagerDuty, Opsgenie, Teams, Telegram). */
export interface Publisher {
  readonly name: string;
  /** The start of the names of the streams it delivers (`slack:`, `subscriber:`…): the outbox looks only for rows some publisher takes. */
  readonly streamPrefix: string;
  /** Least time between two deliveries to one stream (Slack: about one message per second per channel). */
  minIntervalMs(stream: string): number;
  /**
   * Rows of one stream (one destination) delivered at once. Absent or 1: one
   * after the other, in order (chat channels, where order and edit-in-place
   * matter). Webhooks and mail carry their event time and idempotency key, so
   * their rows may go side by side.
   */
  readonly streamWidth?: number;
  /** Deliveries started per second to one stream, at most (absent: no limit): the destination's rate limit, in this process. */
  readonly streamRate?: number;
  /** Resolves once the platform confirmed every step; throws DeliveryFailure (or any error) otherwise. */
  deliver(delivery: Delivery, recorder: DeliveryRecorder): Promise<void>;
  /** Closes what it holds open (pooled connections), once the worker has stopped. */
  close?(): void;
}

/**
 * A failed delivery; `retryAfterMs` when the platform said when to come back
 * (HTTP 429 Retry-After); `permanent` when it refused the notification itself
 * (an invalid event, a key it does not know), which no retry changes: the row
 * is dead-lettered at once (`statusbot outbox retry` puts it back).
 */
export class DeliveryFailure extends Error {
  readonly retryAfterMs: number | null;
  readonly rateLimited: boolean;
  readonly permanent: boolean;
  constructor(message: string, options: { retryAfterMs?: number | null; rateLimited?: boolean; permanent?: boolean } = {}) {
    super(message);
    this.name = 'DeliveryFailure';
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.rateLimited = options.rateLimited ?? false;
    this.permanent = options.permanent ?? false;
  }
}

/** Seconds or an HTTP date, as in Retry-After; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined | null, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
