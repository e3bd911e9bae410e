import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { BOARD_ID } from '../model/board.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { parseInput } from '../validation.js';
import type { ChannelRef, ChannelSubscription, SubscriptionKind } from '../model/channel.js';
import { subscriptionInput, unsubscriptionInput } from './subscription-input.js';
import type { SubscriptionInput, UnsubscriptionInput } from './subscription-input.js';
import { created, recordAudit, removed as gone } from '../audit/audit-trail.js';

/** A board of the company, by id or urlname. */
async function findCompanyBoard(db: Kysely<Database>, companyId: number, ref: string) {
  const board = await db
    .selectFrom('boards')
    .select(['id', 'name', 'urlname'])
    .where('company_id', '=', companyId)
    .where((eb) => (BOARD_ID.test(ref) ? eb('id', '=', ref.toLowerCase()) : eb('urlname', '=', ref)))
    .executeTakeFirst();
  if (!board) throw notFound('board');
  return board;
}

interface Target {
  kind: SubscriptionKind;
  key: string;
  serviceId: number | null;
  monitorId: number | null;
  boardId: string | null;
}

const NO_TARGET = { serviceId: null, monitorId: null, boardId: null };

/** The followed service (a catalog service or one of the company's) or board; not_found otherwise. */
async function resolveTarget(db: Kysely<Database>, companyId: number, input: UnsubscriptionInput): Promise<Target> {
  switch (input.target) {
    case 'incidents':
      return { ...NO_TARGET, kind: 'incidents', key: 'incidents' };
    case 'service': {
      const service = await db.selectFrom('services').select(['id', 'company_id']).where('urlname', '=', input.service).executeTakeFirst();
      if (!service || (service.company_id !== null && service.company_id !== companyId)) throw notFound('service');
      return { ...NO_TARGET, kind: 'service', key: `service:${service.id}`, serviceId: service.id };
    }
    case 'monitor': {
      const ref = input.monitor;
      const monitor = await db
        .selectFrom('custom_monitors')
        .select('id')
        .where('company_id', '=', companyId)
        .where((eb) => (/^\d+$/.test(ref) ? eb('id', '=', Number(ref)) : eb('name', '=', ref)))
        .executeTakeFirst();
      if (!monitor) throw notFound('monitor');
      return { ...NO_TARGET, kind: 'monitor', key: `monitor:${monitor.id}`, monitorId: monitor.id };
    }
    case 'board': {
      const board = await findCompanyBoard(db, companyId, input.board);
      return { ...NO_TARGET, kind: 'board', key: `board:${board.id}`, boardId: board.id };
    }
  }
}

/**
 * Records that a channel follows a target, or updates the digest settings of
 * an existing subscription. Runs in the caller's transaction (chat commands
 * and config alike).
 */
export async function saveSubscription(trx: Kysely<Database>, companyId: number, channel: ChannelRef, input: SubscriptionInput, now: number): Promise<string> {
  const target = await resolveTarget(trx, companyId, input);
  const digest =
    input.target === 'board'
      ? {
          schedule: input.schedule,
          timezone: input.timezone,
          only_on_change: input.only_on_change ? 1 : 0,
          edit_in_place: input.edit_in_place ? 1 : 0,
        }
      : { schedule: null, timezone: null, only_on_change: 0, edit_in_place: 0 };
  // A channel belongs to the company its workspace acts for; it never follows two companies.
  const other = await trx
    .selectFrom('channel_subscriptions')
    .select('company_id')
    .where('platform', '=', channel.platform)
    .where('channel_id', '=', channel.channelId)
    .where('company_id', '!=', companyId)
    .executeTakeFirst();
  if (other) throw new DomainError('conflict', 'This channel already follows another company');
  await trx
    .insertInto('channel_subscriptions')
    .values({
      company_id: companyId,
      platform: channel.platform,
      workspace_id: channel.workspaceId,
      channel_id: channel.channelId,
      kind: target.kind,
      service_id: target.serviceId,
      monitor_id: target.monitorId,
      board_id: target.boardId,
      target_key: target.key,
      ...digest,
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['platform', 'channel_id', 'target_key']).doUpdateSet(digest))
    .execute();
  return target.key;
}

/**
 * Makes a channel follow the company's incidents, a service's status, or a
 * board's digest. Subscribing again to the same target updates its settings.
 */
export async function subscribeChannel(ctx: DomainContext, company: Company, channel: ChannelRef, raw: unknown): Promise<ChannelSubscription> {
  const input = parseInput(subscriptionInput, raw);
  const now = ctx.clock.now().getTime();
  const key = await ctx.write(async (trx) => {
    const saved = await saveSubscription(trx, company.id, channel, input, now);
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'channel_subscription.subscribe',
      targetType: 'channel_subscription',
      targetId: `${channel.platform}:${channel.channelId}/${saved}`,
      changes: created({ ...input }),
    });
    return saved;
  });
  const subscriptions = await listChannelSubscriptions(ctx, company, channel);
  return subscriptions.find((s) => targetKeyOf(s) === key)!;
}

/** Stops a channel following a target; not_found when it did not. */
export async function unsubscribeChannel(ctx: DomainContext, company: Company, channel: ChannelRef, raw: unknown): Promise<void> {
  const input = parseInput(unsubscriptionInput, raw);
  const target = await resolveTarget(ctx.db, company.id, input);
  const removed = await ctx.write(async (trx) => {
    const result = await trx
      .deleteFrom('channel_subscriptions')
      .where('company_id', '=', company.id)
      .where('platform', '=', channel.platform)
      .where('channel_id', '=', channel.channelId)
      .where('target_key', '=', target.key)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) > 0) {
      await recordAudit(ctx, trx, {
        companyId: company.id,
        action: 'channel_subscription.unsubscribe',
        targetType: 'channel_subscription',
        targetId: `${channel.platform}:${channel.channelId}/${target.key}`,
        changes: gone({ target: target.key }),
      });
    }
    return result;
  });
  if (Number(removed.numDeletedRows) === 0) throw new DomainError('not_found', 'This channel does not follow that');
}

function targetKeyOf(s: ChannelSubscription): string {
  switch (s.kind) {
    case 'incidents':
      return 'incidents';
    case 'service':
      return `service:${s.service!.id}`;
    case 'monitor':
      return `monitor:${s.monitor!.id}`;
    case 'board':
      return `board:${s.board!.id}`;
  }
}

const subscriptionRows = (db: Kysely<Database>) =>
  db
    .selectFrom('channel_subscriptions as cs')
    .leftJoin('services', 'services.id', 'cs.service_id')
    .leftJoin('custom_monitors', 'custom_monitors.id', 'cs.monitor_id')
    .leftJoin('boards', 'boards.id', 'cs.board_id')
    .select([
      'cs.id',
      'cs.platform',
      'cs.workspace_id',
      'cs.channel_id',
      'cs.kind',
      'cs.schedule',
      'cs.timezone',
      'cs.only_on_change',
      'cs.edit_in_place',
      'services.id as service_id',
      'services.name as service_name',
      'services.urlname as service_urlname',
      'custom_monitors.id as monitor_id',
      'custom_monitors.name as monitor_name',
      'boards.id as board_id',
      'boards.name as board_name',
      'boards.urlname as board_urlname',
    ]);

type SubscriptionRow = Awaited<ReturnType<ReturnType<typeof subscriptionRows>['execute']>>[number];

/** What a channel follows, incidents first, then services and boards by name. */
export async function listChannelSubscriptions(ctx: DomainContext, company: Company, channel: ChannelRef): Promise<ChannelSubscription[]> {
  const rows = await subscriptionRows(ctx.db)
    .where('cs.company_id', '=', company.id)
    .where('cs.platform', '=', channel.platform)
    .where('cs.channel_id', '=', channel.channelId)
    .execute();
  const order = { incidents: 0, service: 1, monitor: 2, board: 3 } as const;
  return rows.map((r) => toSubscription(r)).sort((a, b) => order[a.kind] - order[b.kind] || nameOf(a).localeCompare(nameOf(b)));
}

const nameOf = (s: ChannelSubscription) => s.service?.name ?? s.monitor?.name ?? s.board?.name ?? '';

export function toSubscription(r: SubscriptionRow): ChannelSubscription {
  return {
    id: r.id,
    channel: { platform: r.platform, workspaceId: r.workspace_id, channelId: r.channel_id },
    kind: r.kind,
    service: r.service_id !== null ? { id: r.service_id, name: r.service_name!, urlname: r.service_urlname! } : null,
    monitor: r.monitor_id !== null ? { id: r.monitor_id, name: r.monitor_name! } : null,
    board: r.board_id !== null ? { id: r.board_id, name: r.board_name!, urlname: r.board_urlname! } : null,
    digest:
      r.kind === 'board'
        ? {
            schedule: r.schedule!,
            timezone: r.timezone!,
            onlyOnChange: r.only_on_change === 1,
            editInPlace: r.edit_in_place === 1,
          }
        : null,
  };
}
