import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { invalidInput } from '../errors.js';
import type { Path } from './apply-chat.js';
import { catalogServiceId, companyName, ownedBy } from './setup-lookups.js';
import type { CompanySpec } from './setup.js';

/** The company's boards, at the ids the config gives them, and the catalog services on each; `path` is that of the list. */
export async function applyBoards(trx: Kysely<Database>, companyId: number, boards: CompanySpec['boards'], now: number, path: Path): Promise<void> {
  for (const [i, b] of boards.entries()) {
    const at: Path = [...path, i];
    const id = b.id.toLowerCase();
    const existing = await trx.selectFrom('boards').select(['company_id', 'name']).where('id', '=', id).executeTakeFirst();
    if (existing && existing.company_id !== companyId) {
      throw invalidInput([...at, 'id'], `board id ${b.id} is already taken by ${ownedBy(existing.name, await companyName(trx, existing.company_id))}`);
    }
    const sameName = await trx.selectFrom('boards').select('id').where('company_id', '=', companyId).where('urlname', '=', b.urlname).executeTakeFirst();
    if (sameName && sameName.id !== id) throw invalidInput([...at, 'urlname'], `another board is named ${b.urlname}`);
    await trx
      .insertInto('boards')
      .values({ id, company_id: companyId, name: b.name, urlname: b.urlname, created_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ name: b.name, urlname: b.urlname }))
      .execute();
    for (const [j, entry] of b.services.entries()) {
      const serviceId = await catalogServiceId(trx, entry.urlname, [...at, 'services', j, 'urlname']);
      const last = await trx
        .selectFrom('board_services')
        .select((eb) => eb.fn.max('position').as('position'))
        .where('board_id', '=', id)
        .executeTakeFirst();
      const tags = JSON.stringify(entry.tags);
      await trx
        .insertInto('board_services')
        .values({ board_id: id, service_id: serviceId, tags, position: (last?.position ?? 0) + 1, created_at: now })
        .onConflict((oc) => oc.columns(['board_id', 'service_id']).doUpdateSet({ tags }))
        .execute();
    }
  }
}
