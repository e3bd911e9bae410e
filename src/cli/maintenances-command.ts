import type { Maintenance } from '../domain/model/maintenance.js';
import { listMaintenances } from '../domain/maintenances/maintenance-service.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';
import { companyOf } from './incidents-command.js';

/** One line, whatever the title holds. */
const oneLine = (text: string) => text.replace(/\p{Cc}+/gu, ' ');

const maintenanceLine = (m: Maintenance) =>
  [m.id, m.status, m.startsAt.toISOString(), m.endsAt.toISOString(), m.services.map((s) => s.urlname).join(','), oneLine(m.title)].join('\t');

/** `statusbot maintenances list`, as commands.ts describes it. */
export async function runMaintenancesList(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  return withContext(input.dbPath, async (ctx) => {
    const company = await companyOf(ctx, input, 'maintenances list');
    const list = await listMaintenances(ctx, company);
    for (const m of list) input.out(maintenanceLine(m));
    if (list.length === 0) input.out(`${company.name} has no maintenances`);
    return 0;
  });
}
