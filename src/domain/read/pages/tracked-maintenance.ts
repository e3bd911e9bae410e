import type { DomainContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { Maintenance } from '../../model/maintenance.js';
import { loadMaintenance, maintenanceById } from '../../maintenances/maintenance-repository.js';
import { linkedPages } from '../../status-pages/status-pages.js';
import type { LinkedPage } from '../../status-pages/status-pages.js';

/**
 * What `{public_url}/maintenances/{id}` shows: a company's maintenance, only
 * where a status page shows one of its services (the first such page is its
 * way back). Else not_found, exactly as for an id that does not exist.
 */
export async function trackedMaintenance(ctx: DomainContext, id: number): Promise<{ maintenance: Maintenance; page: LinkedPage }> {
  const row = await maintenanceById(ctx.db, id).executeTakeFirst();
  if (!row) throw notFound('maintenance');
  const maintenance = await loadMaintenance(ctx.db, ctx.publicUrl, row);
  for (const service of maintenance.services) {
    const [page] = await linkedPages(ctx.db, service.id);
    if (page) return { maintenance, page };
  }
  throw notFound('maintenance');
}
