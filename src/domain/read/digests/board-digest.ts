import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { createTask } from 'node-cron';
import type { ChannelSubscriptionsTable } from '../../../db/schema.js';
import { channelStream } from '../../model/channel.js';
import type { DomainContext } from '../../context.js';
import { openAt } from '../../model/demo-view.js';
import type { Severity } from '../../model/incident.js';
import type { DigestAnnouncement } from '../../notifications/announcement.js';
import { enqueue, queuable } from '../../notifications/enqueue.js';
import { serviceTrackerUrl } from '../../model/service.js';
import { statusesOf } from '../../services/service-status.js';
import { reasonText, shownStatus } from '../../model/shown-status.js';
import type { ShownStatus } from '../../model/shown-status.js';
import { knowledgeOf } from '../../services/feed-knowledge.js';
import { vendorMaintenancesOf } from '../../vendors/vendor-feeds.js';

const SEVERITY_RANK: Record<ShownStatus, number> = { major: 0, minor: 1, unknown: 2, maintenance: 3, ok: 4 };

const digestColumns = [
  'id',
  'company_id',
  'platform',
  'workspace_id',
  'channel_id',
  'board_id',
  'schedule',
  'timezone',
  'only_on_change',
  'edit_in_place',
  'last_digest',
] as const;

/** A board subscription: its board and digest settings are set (the `board` kind requires them). */
type DigestSubscription = Pick<Selectable<ChannelSubscriptionsTable>, (typeof digestColumns)[number]> & {
  board_id: string;
  schedule: string;
  timezone: string;
};

/** Whether a cron schedule, read in a time zone, fires at this minute. */
export function firesAt(schedule: string, timezone: string, at: Date): boolean {
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  const task = createTask(schedule, () => undefined, { timezone });
  try {
    return task.match(minute);
  } finally {
    void task.destroy();
  }
}

/** The digest of a board: each service with its status, open incidents and tags, worst first. */
export async function buildDigest(ctx: DomainContext, boardId: string): Promise<Pick<DigestAnnouncement, 'board' | 'services'> | null> {
  const board = await ctx.db.selectFrom('boards').select(['id', 'name', 'urlname']).where('id', '=', boardId).executeTakeFirst();
  if (!board) return null;
  const entries = await ctx.db
    .selectFrom('board_services')
    .innerJoin('services', 'services.id', 'board_services.service_id')
    .select(['services.id', 'services.name', 'services.urlname', 'board_services.tags', 'board_services.position'])
    .where('board_services.board_id', '=', board.id)
    .orderBy('board_services.position')
    .execute();
  const ids = entries.map((e) => e.id);
  const now = ctx.clock.now().getTime();
  const [statuses, knowledge, maintenances] = await Promise.all([
    statusesOf(ctx.db, ids, now),
    knowledgeOf(ctx.db, ids, now),
    vendorMaintenancesOf(ctx.db, ids, now),
  ]);
  const open =
    ids.length === 0
      ? []
      : await ctx.db
          .selectFrom('incidents')
          .select(['id', 'service_id', 'title', 'status', 'created_at', 'url', 'components'])
          .where('service_id', 'in', ids)
          // Digests say what the providers say; incidents from user reports are posted apart, as unconfirmed.
          .where('user_generated', '=', 0)
          .where(openAt(now))
          .orderBy('created_at', 'desc')
          .execute();
  const services = entries.map((e) => {
    const shown = shownStatus(statuses.get(e.id) ?? 'ok', knowledge.get(e.id));
    return {
      name: e.name,
      urlname: e.urlname,
      status: shown.status,
      noData: reasonText(shown),
      tags: JSON.parse(e.tags) as string[],
      trackerUrl: serviceTrackerUrl(ctx.publicUrl, e.urlname),
      openIncidents: open
        .filter((i) => i.service_id === e.id)
        .map((i) => ({
          id: i.id,
          title: i.title,
          severity: i.status as Severity,
          createdAt: new Date(i.created_at).toISOString(),
          url: i.url,
          components: JSON.parse(i.components) as string[],
        })),
      maintenances: (maintenances.get(e.id) ?? []).map((m) => ({
        name: m.name,
        startsAt: m.startsAt.toISOString(),
        endsAt: m.endsAt?.toISOString() ?? null,
        url: m.url,
        components: m.components,
      })),
      position: e.position,
    };
  });
  services.sort((a, b) => SEVERITY_RANK[a.status] - SEVERITY_RANK[b.status] || a.position - b.position);
  return { board, services: services.map(({ position: _position, ...s }) => s) };
}

/**
 * Queues the digest of every board subscription whose schedule fires at this
 * minute in its time zone; with only_on_change, a digest equal to the last
 * one posted is skipped. Returns how many were queued.
 */
export async function queueDueDigests(ctx: DomainContext, at: Date): Promise<number> {
  const subscriptions: DigestSubscription[] = (await ctx.db
    .selectFrom('channel_subscriptions')
    .select(digestColumns)
    .where('kind', '=', 'board')
    .orderBy('id')
    .execute()) as DigestSubscription[];
  let queued = 0;
  for (const sub of subscriptions) {
    if (!firesAt(sub.schedule, sub.timezone, at)) continue;
    const channel = { platform: sub.platform, workspaceId: sub.workspace_id, channelId: sub.channel_id };
    if (!queuable(ctx, channelStream(channel))) continue;
    const digest = await buildDigest(ctx, sub.board_id);
    if (!digest) continue;
    const fingerprint = createHash('sha256').update(JSON.stringify(digest)).digest('hex');
    if (sub.only_on_change === 1 && sub.last_digest === fingerprint) continue;
    const announcement: DigestAnnouncement = {
      kind: 'digest',
      channel,
      subscriptionId: sub.id,
      editInPlace: sub.edit_in_place === 1,
      at: new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString(),
      ...digest,
    };
    const now = ctx.clock.now().getTime();
    await ctx.write(async (trx) => {
      await enqueue(trx, {
        companyId: sub.company_id,
        subscriberId: null,
        stream: channelStream(channel),
        event: 'board.digest',
        payload: announcement,
        now,
      });
      await trx.updateTable('channel_subscriptions').set({ last_digest: fingerprint }).where('id', '=', sub.id).execute();
    });
    queued++;
  }
  return queued;
}
