import { createHash, randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { CompaniesTable } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { Company } from './company.js';
import { parseNotifyOn } from './company.js';

/** Keys are stored as SHA-256 hex digests; the plaintext exists only in the caller's hands. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const generateApiKey = (): string => `sb_${randomBytes(24).toString('base64url')}`;

/** How long a key found in the database is trusted without asking again (changes from other processes show within it). */
const KEY_MEMO_MS = 5_000;
const KEY_MEMO_MAX = 10_000;

const unauthorized = () => new DomainError('unauthorized', 'The API key is missing or invalid');

const companyByKeyHash = prepared<'hash', Pick<Selectable<CompaniesTable>, 'id' | 'name' | 'plan' | 'notify_on'> & { key_id: number }>((db, p) =>
  db
    .selectFrom('api_keys')
    .innerJoin('companies', 'companies.id', 'api_keys.company_id')
    .select(['companies.id', 'companies.name', 'companies.plan', 'companies.notify_on', 'api_keys.id as key_id'])
    .where('api_keys.key_hash', '=', p.hash),
);

/** The company an API key acts for; `unauthorized` for an unknown key. */
export async function authenticate(ctx: DomainContext, key: string): Promise<Company> {
  return (await authenticateKey(ctx, key)).company;
}

/** The company an API key acts for, and the key's id (who the key is, without the key). */
export async function authenticateKey(ctx: DomainContext, key: string): Promise<{ company: Company; keyId: number }> {
  if (key.length === 0 || key.length > 512) throw unauthorized();
  const now = Date.now();
  // Remembered by the key itself: hashing it costs more than the rest of a cached read.
  const memo = ctx.memo.apiKeys.get(key);
  if (memo && memo.until > now) return memo;
  const row = (await companyByKeyHash(ctx.db, { hash: hashApiKey(key) }))[0];
  if (!row) throw unauthorized();
  const company: Company = { id: row.id, name: row.name, plan: row.plan, notifyOn: parseNotifyOn(row.notify_on) };
  if (ctx.memo.apiKeys.size >= KEY_MEMO_MAX) ctx.memo.apiKeys.clear();
  ctx.memo.apiKeys.set(key, { company, keyId: row.key_id, until: now + KEY_MEMO_MS });
  return { company, keyId: row.key_id };
}

/** Issues a new key for a company by name; the plaintext is returned once and never stored. */
export async function createApiKey(
  ctx: DomainContext,
  companyName: string,
  label = 'cli',
): Promise<{ key: string; company: string }> {
  const key = generateApiKey();
  const company = await ctx.write(async (trx) => {
    const found = await trx.selectFrom('companies').select(['id', 'name']).where('name', '=', companyName).executeTakeFirst();
    if (!found) throw new DomainError('not_found', `No company is named "${companyName}"`);
    await trx
      .insertInto('api_keys')
      .values({ company_id: found.id, key_hash: hashApiKey(key), label, created_at: ctx.clock.now().getTime() })
      .execute();
    return found.name;
  });
  return { key, company };
}
