import { companyNamed } from '../domain/companies/api-keys.js';
import type { DomainContext } from '../domain/context.js';
import { listCompanyIncidents } from '../domain/incidents/company-incidents.js';
import type { IncidentSummary } from '../domain/model/incident.js';
import { PAGE_MAX } from '../domain/page-limit.js';
import { UsageError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';

/** One line, whatever the title holds. */
const oneLine = (text: string) => text.replace(/\p{Cc}+/gu, ' ');

const incidentLine = (i: IncidentSummary) =>
  [i.id, i.serviceUrlname, i.status, i.resolved ? 'resolved' : 'open', i.createdAt.toISOString(), oneLine(i.title)].join('\t');

/** --company NAME, or the only company there is; `command` names the command in the usage error. */
export async function companyOf(ctx: DomainContext, input: CommandInput, command = 'incidents list'): Promise<{ id: number; name: string }> {
  const name = input.string('company');
  if (name) return companyNamed(ctx.db, name);
  const companies = await ctx.db.selectFrom('companies').select(['id', 'name']).orderBy('name').limit(20).execute();
  if (companies.length === 1) return companies[0]!;
  const known = companies.length === 0 ? 'there are no companies yet' : `the companies are ${companies.map((c) => c.name).join(', ')}`;
  throw new UsageError(`${command} needs --company NAME; ${known}`);
}

/** `statusbot incidents list`, as commands.ts describes it. */
export async function runIncidentsList(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  const open = input.flag('open');
  return withContext(input.dbPath, async (ctx) => {
    const company = await companyOf(ctx, input);
    const filter = { ...(open ? { resolved: 'false' } : {}), limit: String(PAGE_MAX) };
    let cursor: string | null = null;
    let shown = 0;
    do {
      const page = await listCompanyIncidents(ctx, company, { ...filter, ...(cursor ? { cursor } : {}) });
      for (const incident of page.incidents) input.out(incidentLine(incident));
      shown += page.incidents.length;
      cursor = page.next;
    } while (cursor);
    if (shown === 0) input.out(`${company.name} has no ${open ? 'open ' : ''}incidents`);
    return 0;
  });
}
