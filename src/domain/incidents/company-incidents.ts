import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { openAt } from '../model/demo-view.js';
import { DomainError } from '../errors.js';
import { PAGE_DEFAULT } from '../page-limit.js';
import { parseInput } from '../validation.js';
import type { IncidentSummary } from '../model/incident.js';
import { incidentCursor, incidentListInput } from './incident-input.js';
import { incidentRow, toSummary } from './incident-repository.js';

export interface IncidentPage {
  incidents: IncidentSummary[];
  /** The cursor of the next page; null on the last one. */
  next: string | null;
}

const NOT_OURS = 'service_id must be the id of a custom service of your company';

/**
 * A page of the incidents on the company's custom services, newest first
 * (creation time, then id). The cursor is the place of the last incident
 * shown, not an offset: incidents opened meanwhile sort before it, so paging
 * on neither repeats nor skips one.
 */
export async function listCompanyIncidents(ctx: DomainContext, company: Pick<Company, 'id'>, raw: unknown): Promise<IncidentPage> {
  const input = parseInput(incidentListInput, raw, 'query');
  const limit = input.limit ?? PAGE_DEFAULT;
  if (input.service_id !== undefined) {
    const own = await ctx.db.selectFrom('services').select('id').where('id', '=', input.service_id).where('company_id', '=', company.id).executeTakeFirst();
    // The same answer for another company's service, a catalog service and none: existence is never revealed.
    if (!own) throw new DomainError('invalid_input', NOT_OURS, [{ path: ['service_id'], message: NOT_OURS, location: 'query' }]);
  }
  const now = ctx.clock.now().getTime();
  let query = incidentRow(ctx.db, now)
    .where('services.company_id', '=', company.id)
    .orderBy('incidents.created_at', 'desc')
    .orderBy('incidents.id', 'desc')
    .limit(limit + 1);
  if (input.service_id !== undefined) query = query.where('incidents.service_id', '=', input.service_id);
  if (input.resolved === 'false') query = query.where(openAt(now));
  if (input.resolved === 'true') query = query.where((eb) => eb.not(openAt(now)(eb)));
  if (input.since !== undefined) query = query.where('incidents.created_at', '>=', input.since);
  const after = input.cursor;
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('incidents.created_at', '<', after.createdAt), eb.and([eb('incidents.created_at', '=', after.createdAt), eb('incidents.id', '<', after.id)])]),
    );
  }
  const rows = await query.execute();
  const incidents = rows.slice(0, limit).map((row) => toSummary(row, now));
  const last = incidents.at(-1);
  return { incidents, next: rows.length > limit && last ? incidentCursor({ createdAt: last.createdAt.getTime(), id: last.id }) : null };
}
