import type { AuditEvent } from '../domain/audit/audit-trail.js';
import { listAuditEvents } from '../domain/audit/audit-trail.js';
import { companyNamed } from '../domain/companies/api-keys.js';
import { DomainError } from '../domain/errors.js';
import { CommandError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';

function eventLine(e: AuditEvent, companies: Map<number, string>): string {
  const company = e.companyId === null ? '-' : (companies.get(e.companyId) ?? String(e.companyId));
  const target = `${e.targetType}:${e.targetId}`;
  return [e.id, e.at.toISOString(), company, e.actor, e.action, target, e.requestId ?? '-', JSON.stringify(e.changes)].join('\t');
}

/** `statusbot audit list`, as commands.ts describes it. */
export async function runAuditList(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  return withContext(input.dbPath, async (ctx) => {
    const name = input.string('company');
    const of = name ? { company: await companyNamed(ctx.db, name) } : ({ everyCompany: true } as const);
    const page = { before: input.string('before'), limit: input.string('limit') };
    const { events, more } = await listAuditEvents(ctx, of, page).catch((error: unknown) => {
      throw error instanceof DomainError ? new CommandError(error.message) : error;
    });
    const companies = new Map((await ctx.db.selectFrom('companies').select(['id', 'name']).execute()).map((c) => [Number(c.id), c.name]));
    if (events.length === 0) input.out(name ? `nothing was changed in ${name} yet` : 'nothing was changed yet');
    for (const e of events) input.out(eventLine(e, companies));
    if (more) input.err(`older events: statusbot audit list${name ? ` --company ${name}` : ''} --before ${events.at(-1)!.id}`);
    return 0;
  });
}
