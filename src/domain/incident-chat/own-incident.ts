import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { findIncidentRow, loadIncident } from '../incidents/incident-repository.js';
import type { Company } from '../model/company.js';
import type { Incident } from '../model/incident.js';

/** One of the company's own incidents, read in the transaction; a catalog incident is read-only. */
export async function ownIncident(ctx: DomainContext, trx: Kysely<Database>, company: Company, id: number): Promise<Incident> {
  const row = await findIncidentRow(trx, id, ctx.clock.now().getTime());
  if (!row) throw notFound('incident');
  if (row.service_company_id === null) throw forbidden('Incidents of third-party services cannot be changed');
  if (row.service_company_id !== company.id) throw notFound('incident');
  return loadIncident(ctx, trx, row);
}
