export type Plan = 'free' | 'business';

export const NOTIFY_EVENTS = ['created', 'updated', 'resolved', 'reopened', 'deleted'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export interface Company {
  id: number;
  name: string;
  plan: Plan;
  /** Incident events that notify the subscribers of the company's status pages. */
  notifyOn: readonly NotifyEvent[];
}

export function parseNotifyOn(stored: string): NotifyEvent[] {
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.filter((e): e is NotifyEvent => NOTIFY_EVENTS.includes(e)) : [];
}
