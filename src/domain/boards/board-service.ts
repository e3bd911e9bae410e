import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { BoardServicesTable, BoardsTable, Database, ServicesTable } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { serviceColumns, toService } from '../services/service-access.js';
import type { ServiceRow } from '../services/service-access.js';
import { statusOf } from '../services/service-status.js';
import { parseInput } from '../validation.js';
import { BOARD_ID } from '../model/board.js';
import type { Board, BoardService } from '../model/board.js';
import { boardServiceInput } from './board-input.js';
import { changesBetween, created, recordAudit } from '../audit/audit-trail.js';

const boardOfCompany = prepared<'id' | 'company', Pick<Selectable<BoardsTable>, 'id' | 'name' | 'urlname'>>((db, p) =>
  db.selectFrom('boards').select(['id', 'name', 'urlname']).where('id', '=', p.id).where('company_id', '=', p.company),
);

type BoardEntryRow = Pick<Selectable<ServicesTable>, 'name' | 'urlname'> & Pick<Selectable<BoardServicesTable>, 'tags'>;

const servicesOfBoard = prepared<'board', BoardEntryRow>((db, p) =>
  db
    .selectFrom('board_services')
    .innerJoin('services', 'services.id', 'board_services.service_id')
    .select(['services.name', 'services.urlname', 'board_services.tags'])
    .where('board_services.board_id', '=', p.board)
    .orderBy('board_services.position'),
);

const parseTags = (stored: string): string[] => JSON.parse(stored) as string[];

export async function getBoard(ctx: DomainContext, company: Company, boardId: string): Promise<Board> {
  const board = await findBoard(ctx.db, company, boardId);
  const services = await servicesOfBoard(ctx.db, { board: board.id });
  return {
    id: board.id,
    name: board.name,
    urlname: board.urlname,
    services: services.map((s) => ({ name: s.name, urlname: s.urlname, tags: parseTags(s.tags) })),
  };
}

/** Puts a catalog service on a board; `conflict` when it is there already. */
export async function addServiceToBoard(ctx: DomainContext, company: Company, boardId: string, urlname: string, raw: unknown): Promise<BoardService> {
  const input = parseInput(boardServiceInput, raw ?? {});
  return ctx.write(async (trx) => {
    const board = await findBoard(trx, company, boardId);
    const service = await findCatalogService(trx, urlname);
    const existing = await trx
      .selectFrom('board_services')
      .select('service_id')
      .where('board_id', '=', board.id)
      .where('service_id', '=', service.id)
      .executeTakeFirst();
    if (existing) throw new DomainError('conflict', 'Service already added to board');
    const last = await trx
      .selectFrom('board_services')
      .select((eb) => eb.fn.max('position').as('position'))
      .where('board_id', '=', board.id)
      .executeTakeFirst();
    const tags = input.tags ?? [];
    await trx
      .insertInto('board_services')
      .values({
        board_id: board.id,
        service_id: service.id,
        tags: JSON.stringify(tags),
        position: (last?.position ?? 0) + 1,
        created_at: ctx.clock.now().getTime(),
      })
      .execute();
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'board_service.add',
      targetType: 'board_service',
      targetId: `${board.id}/${service.urlname}`,
      changes: created({ tags }),
    });
    return boardService(ctx, trx, service, tags);
  });
}

/** Sets the tags of a service on a board; without `tags`, nothing changes. */
export async function updateBoardService(ctx: DomainContext, company: Company, boardId: string, urlname: string, raw: unknown): Promise<BoardService> {
  const input = parseInput(boardServiceInput, raw ?? {});
  return ctx.write(async (trx) => {
    const board = await findBoard(trx, company, boardId);
    const service = await findCatalogService(trx, urlname);
    const entry = await trx
      .selectFrom('board_services')
      .select('tags')
      .where('board_id', '=', board.id)
      .where('service_id', '=', service.id)
      .executeTakeFirst();
    if (!entry) throw notFound('service on this board');
    let tags = parseTags(entry.tags);
    if (input.tags !== undefined) {
      await recordAudit(ctx, trx, {
        companyId: company.id,
        action: 'board_service.update',
        targetType: 'board_service',
        targetId: `${board.id}/${service.urlname}`,
        changes: changesBetween({ tags }, { tags: input.tags }),
      });
      tags = input.tags;
      await trx
        .updateTable('board_services')
        .set({ tags: JSON.stringify(tags) })
        .where('board_id', '=', board.id)
        .where('service_id', '=', service.id)
        .execute();
    }
    return boardService(ctx, trx, service, tags);
  });
}

async function boardService(ctx: DomainContext, db: Kysely<Database>, service: ServiceRow, tags: string[]): Promise<BoardService> {
  return { ...toService(ctx, service), status: await statusOf(db, service.id, ctx.clock.now().getTime()), tags };
}

async function findBoard(db: Kysely<Database>, company: Company, boardId: string) {
  if (!BOARD_ID.test(boardId)) throw notFound('board');
  const [board] = await boardOfCompany(db, { id: boardId.toLowerCase(), company: company.id });
  if (!board) throw notFound('board');
  return board;
}

async function findCatalogService(db: Kysely<Database>, urlname: string): Promise<ServiceRow> {
  const service = await db.selectFrom('services').select(serviceColumns).where('urlname', '=', urlname).where('company_id', 'is', null).executeTakeFirst();
  if (!service) throw notFound('service');
  return service;
}
