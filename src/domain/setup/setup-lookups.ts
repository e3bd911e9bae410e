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

/**
 * What holds a service id or urlname, for the message of a clash: an operator applying the
 * config owns the whole database and may read it. The API never shows another company's.
 */
export async function serviceHolder(trx: Kysely<Database>, by: { id: number } | { urlname: string }): Promise<string> {
  const query = trx
    .selectFrom('services')
    .leftJoin('companies', 'companies.id', 'services.company_id')
    .select(['services.name', 'services.demo', 'services.company_id', 'companies.name as company']);
  const row = await ('id' in by ? query.where('services.id', '=', by.id) : query.where('services.urlname', '=', by.urlname)).executeTakeFirstOrThrow();
  if (row.company_id !== null) return ownedBy(row.name, row.company);
  return row.demo !== null ? `the demo service "${row.name}"` : `the catalog vendor "${row.name}"`;
}

/** `"Demo API" of the company Demo`: an item of a company, named for an operator. */
export const ownedBy = (name: string, company: string | null): string => `"${name}" of the company ${company ?? '(unknown)'}`;

/** The name of a company, for the message of a clash. */
export async function companyName(trx: Kysely<Database>, companyId: number): Promise<string | null> {
  return (await trx.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirst())?.name ?? null;
}
