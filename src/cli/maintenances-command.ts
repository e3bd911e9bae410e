import type { Maintenance } from '../domain/maintenances/maintenance.js';
import { listMaintenances } from '../domain/maintenances/maintenance-service.js';
import type { Command } from './command.js';
import { mustExist, withContext } from './database-access.js';
import { companyOf } from './incidents-command.js';

/** One line, whatever the title holds. */
const oneLine = (text: string) => text.replace(/\p{Cc}+/gu, ' ');

const maintenanceLine = (m: Maintenance) =>
  [m.id, m.status, m.startsAt.toISOString(), m.endsAt.toISOString(), m.services.map((s) => s.urlname).join(','), oneLine(m.title)].join('\t');

export const maintenancesListCommand: Command = {
  name: 'maintenances list',
  synopsis: '[--company NAME] [--db FILE|URL]',
  summary: "a company's maintenances, upcoming and in progress first",
  details: [
    'One line per maintenance: id, status, start, end, services, title; the list of GET /api/v2/maintenances',
    '(those scheduled or in progress, soonest first, then those over in the last 30 days).',
    'The maintenances of the only company there is, unless --company names one.',
  ].join('\n'),
  options: ['company', 'db'],
  async run(input) {
    mustExist(input.dbPath);
    return withContext(input.dbPath, async (ctx) => {
      const company = await companyOf(ctx, input, 'maintenances list');
      const list = await listMaintenances(ctx, company);
      for (const m of list) input.out(maintenanceLine(m));
      if (list.length === 0) input.out(`${company.name} has no maintenances`);
      return 0;
    });
  },
};
