import type { DomainContext } from '../domain/context.js';
import type { DestinationSettings, NotifyKind } from '../domain/notifications/notify-destination.js';
import { batchedLookup } from '../infrastructure/batched-lookup.js';
import { paddedIds } from '../db/dialect.js';
import { DeliveryFailure } from './publisher.js';

/**
 * A publisher's way to its destinations' settings, secrets included, by the
 * stream of a delivery (`pagerduty:12`): deliveries started together read
 * theirs in one query. A destination removed from the config fails its rows.
 */
export function destinationSettings<K extends NotifyKind>(ctx: DomainContext, kind: K): (stream: string) => Promise<{ id: number } & DestinationSettings<K>> {
  const lookup = batchedLookup(async (ids: readonly number[]) => {
    const rows = await ctx.db.selectFrom('notify_destinations').select(['id', 'kind', 'settings']).where('id', 'in', paddedIds(ids)).execute();
    return new Map(rows.filter((r) => r.kind === kind).map((r) => [Number(r.id), JSON.parse(r.settings) as DestinationSettings<K>]));
  });
  return async (stream) => {
    const id = Number(stream.slice(kind.length + 1));
    const settings = Number.isSafeInteger(id) ? await lookup(id) : undefined;
    if (!settings) throw new DeliveryFailure(`the ${kind} destination ${stream} is no longer in the config`, { permanent: true });
    return { id, ...settings };
  };
}

/** The first message the destination posted about the incident, which later ones reply to. */
export async function firstMessageOf(ctx: DomainContext, destinationId: number, incidentId: number): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('notify_messages')
    .select('message_id')
    .where('destination_id', '=', destinationId)
    .where('incident_id', '=', incidentId)
    .executeTakeFirst();
  return row?.message_id ?? null;
}

/** Records a message as the incident's first at the destination, unless one is already. */
export async function rememberFirstMessage(ctx: DomainContext, destinationId: number, incidentId: number, messageId: string): Promise<void> {
  const now = ctx.clock.now().getTime();
  await ctx.write((trx) =>
    trx
      .insertInto('notify_messages')
      .values({ destination_id: destinationId, incident_id: incidentId, message_id: messageId, created_at: now })
      .onConflict((oc) => oc.columns(['destination_id', 'incident_id']).doNothing())
      .execute(),
  );
}

/**
 * The priority an Opsgenie destination last gave the incident's alert (kept
 * where Telegram keeps its first message: one row per destination and
 * incident), so that only a change of severity sets it again: a priority
 * someone set by hand at Opsgenie stays while the severity does.
 */
export const alertPriorityOf = firstMessageOf;

/** Records the priority the alert now has at the destination, over the one before. */
export async function rememberAlertPriority(ctx: DomainContext, destinationId: number, incidentId: number, priority: string): Promise<void> {
  const now = ctx.clock.now().getTime();
  await ctx.write((trx) =>
    trx
      .insertInto('notify_messages')
      .values({ destination_id: destinationId, incident_id: incidentId, message_id: priority, created_at: now })
      .onConflict((oc) => oc.columns(['destination_id', 'incident_id']).doUpdateSet({ message_id: priority, created_at: now }))
      .execute(),
  );
}
