import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { invalidInput } from '../errors.js';
import type { Path } from './apply-chat.js';

/** A catalog service, or (when allowed) one of the company's custom services. */
export async function serviceIdOf(trx: Kysely<Database>, urlname: string, companyId: number, path: Path, customOnly = false): Promise<number> {
  const row = await trx.selectFrom('services').select(['id', 'company_id']).where('urlname', '=', urlname).executeTakeFirst();
  const fits = row && (customOnly ? row.company_id === companyId : row.company_id === null || row.company_id === companyId);
  if (!row || !fits) {
    throw invalidInput(path, customOnly ? `${urlname} is not a custom service of this company` : `unknown service ${urlname}`);
  }
  return row.id;
}

export async function catalogServiceId(trx: Kysely<Database>, urlname: string, path: Path): Promise<number> {
  const row = await trx.selectFrom('services').select('id').where('urlname', '=', urlname).where('company_id', 'is', null).executeTakeFirst();
  if (!row) throw invalidInput(path, `${urlname} is not a third-party service in the catalog`);
  return row.id;
}
