import { prepared } from '../../db/prepared.js';
import { authenticate } from '../companies/api-keys.js';
import type { Company } from '../model/company.js';
import { parseNotifyOn } from '../model/company.js';
import type { DomainContext } from '../context.js';
import type { ChatPlatform } from '../model/channel.js';
import { changesBetween, recordAudit } from '../audit/audit-trail.js';

const companyOfWorkspace = prepared<'platform' | 'workspace', { id: number; name: string; plan: Company['plan']; notify_on: string }>((db, p) =>
  db
    .selectFrom('chat_links')
    .innerJoin('companies', 'companies.id', 'chat_links.company_id')
    .select(['companies.id', 'companies.name', 'companies.plan', 'companies.notify_on'])
    .where('chat_links.platform', '=', p.platform)
    .where('chat_links.workspace_id', '=', p.workspace),
);

/** The company a workspace acts for, or null while it is not linked. */
export async function companyForWorkspace(ctx: DomainContext, platform: ChatPlatform, workspaceId: string): Promise<Company | null> {
  const [row] = await companyOfWorkspace(ctx.db, { platform, workspace: workspaceId });
  return row ? { id: row.id, name: row.name, plan: row.plan, notifyOn: parseNotifyOn(row.notify_on) } : null;
}

/**
 * Makes a workspace act for the company whose API key is given: the key proves
 * the company. A workspace acts for one company; linking again moves it.
 * `authorize` may refuse (throw) once the company is known, before anything changes.
 */
export async function linkWorkspace(
  ctx: DomainContext,
  platform: ChatPlatform,
  workspaceId: string,
  apiKey: string,
  authorize: (company: Company) => Promise<void> = async () => {},
): Promise<Company> {
  const company = await authenticate(ctx, apiKey.trim());
  await authorize(company);
  const now = ctx.clock.now().getTime();
  await ctx.write(async (trx) => {
    const before = await trx
      .selectFrom('chat_links')
      .select('company_id')
      .where('platform', '=', platform)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    await trx
      .insertInto('chat_links')
      .values({ platform, workspace_id: workspaceId, company_id: company.id, created_at: now })
      .onConflict((oc) => oc.columns(['platform', 'workspace_id']).doUpdateSet({ company_id: company.id, created_at: now }))
      .execute();
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'chat_link.link',
      targetType: 'chat_link',
      targetId: `${platform}:${workspaceId}`,
      changes: changesBetween(before ? { company_id: Number(before.company_id) } : {}, { company_id: company.id }),
    });
  });
  return company;
}

/** Whether the config names a member of the platform as an admin of the company's chat (`companies[].slack.admins`). */
export async function isChatAdmin(ctx: DomainContext, company: Company, platform: ChatPlatform, userId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('chat_admins')
    .select('user_id')
    .where('company_id', '=', company.id)
    .where('platform', '=', platform)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}
