import { createHash, randomBytes } from 'node:crypto';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { Company } from './company.js';
import { parseNotifyOn } from './company.js';

/** Keys are stored as SHA-256 hex digests; the plaintext exists only in the caller's hands. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const generateApiKey = (): string => `sb_${randomBytes(24).toString('base64url')}`;

const unauthorized = () => new DomainError('unauthorized', 'The API key is missing or invalid');

/** The company an API key acts for; `unauthorized` for an unknown key. */
export async function authenticate(ctx: DomainContext, key: string): Promise<Company> {
  if (key.length === 0 || key.length > 512) throw unauthorized();
  const row = await ctx.db
    .selectFrom('api_keys')
    .innerJoin('companies', 'companies.id', 'api_keys.company_id')
    .select(['companies.id', 'companies.name', 'companies.plan', 'companies.notify_on'])
    .where('api_keys.key_hash', '=', hashApiKey(key))
    .executeTakeFirst();
  if (!row) throw unauthorized();
  return { id: row.id, name: row.name, plan: row.plan, notifyOn: parseNotifyOn(row.notify_on) };
}

/** Issues a new key for a company by name; the plaintext is returned once and never stored. */
export async function createApiKey(
  ctx: DomainContext,
  companyName: string,
  label = 'cli',
): Promise<{ key: string; company: string }> {
  const company = await ctx.db
    .selectFrom('companies')
    .select(['id', 'name'])
    .where('name', '=', companyName)
    .executeTakeFirst();
  if (!company) throw new DomainError('not_found', `No company is named "${companyName}"`);
  const key = generateApiKey();
  await ctx.db
    .insertInto('api_keys')
    .values({ company_id: company.id, key_hash: hashApiKey(key), label, created_at: ctx.clock.now().getTime() })
    .execute();
  return { key, company: company.name };
}
