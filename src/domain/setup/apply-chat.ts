import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { saveSubscription } from '../chat/subscriptions.js';
import type { SubscriptionInput } from '../chat/subscription-input.js';
import { DomainError, invalidInput } from '../errors.js';
import type { CompanySpec } from './setup.js';

/** Where an entry stands in the setup, for the errors that name it. */
export type Path = (string | number)[];

/** The company's Slack workspace and Discord guild, and what its channels follow. */
export async function applyChat(trx: Kysely<Database>, companyId: number, spec: CompanySpec, now: number, path: Path): Promise<void> {
  const workspaces = { slack: spec.slack?.team_id, discord: spec.discord?.guild_id };
  for (const platform of ['slack', 'discord'] as const) {
    const workspaceId = workspaces[platform];
    if (workspaceId === undefined) continue;
    await trx
      .insertInto('chat_links')
      .values({ platform, workspace_id: workspaceId, company_id: companyId, created_at: now })
      .onConflict((oc) => oc.columns(['platform', 'workspace_id']).doUpdateSet({ company_id: companyId }))
      .execute();
  }
  // The config holds the whole list: admins it no longer names lose the right.
  await trx.deleteFrom('chat_admins').where('company_id', '=', companyId).where('platform', '=', 'slack').execute();
  for (const userId of new Set(spec.slack?.admins ?? [])) {
    await trx.insertInto('chat_admins').values({ company_id: companyId, platform: 'slack', user_id: userId }).execute();
  }
  for (const [i, ch] of spec.channels.entries()) {
    const at: Path = [...path, 'channels', i];
    const platform = ch.slack !== undefined ? 'slack' : 'discord';
    const channel = { platform, workspaceId: workspaces[platform]!, channelId: (ch.slack ?? ch.discord)! } as const;
    const follow: [SubscriptionInput, Path][] = [
      ...(ch.incidents ? [[{ target: 'incidents' }, [...at, 'incidents']] as [SubscriptionInput, Path]] : []),
      ...ch.services.map((service, j): [SubscriptionInput, Path] => [{ target: 'service', service }, [...at, 'services', j]]),
      ...ch.monitors.map((monitor, j): [SubscriptionInput, Path] => [{ target: 'monitor', monitor: String(monitor) }, [...at, 'monitors', j]]),
      ...ch.boards.map((b, j): [SubscriptionInput, Path] => [{ target: 'board', ...b }, [...at, 'boards', j]]),
    ];
    for (const [input, inputPath] of follow) {
      try {
        await saveSubscription(trx, companyId, channel, input, now);
      } catch (error) {
        if (error instanceof DomainError) throw invalidInput(inputPath, error.message);
        throw error;
      }
    }
  }
}
