import type { Kysely, Selectable } from 'kysely';
import type { Database, IncidentsTable } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { openAt } from '../model/demo-view.js';
import { applyIncidentChanges, lockScopeForMany } from '../incidents/incident-pipeline.js';
import type { IncidentDraft, ProposedChange } from '../incidents/incident-pipeline.js';
import type { Service } from '../model/service.js';
import { assertMayReadIncidentsOf, findVisibleService } from '../services/service-access.js';
import { parseInput } from '../validation.js';
import { userReportInput } from './user-report-input.js';
import { created, recordAudit } from '../audit/audit-trail.js';
import { plural } from '../plural.js';
import { clipText } from '../clip-text.js';

const MINUTE = 60_000;
/** Who reports: one API key or one chat user; stable, and never a secret. */
export const reporters = {
  apiKey: (keyId: number): string => `key:${keyId}`,
  slack: (teamId: string, userId: string): string => `slack:${teamId}:${userId}`,
  discord: (userId: string): string => `discord:${userId}`,
};

export interface UserReport {
  id: number;
  service: Service;
  createdAt: Date;
  /** Distinct reporters of the service within the last `minutes`, this one included. */
  reporters: number;
  minutes: number;
}

/**
 * Records a report of a problem with a service, by a reporter who may read
 * the service's incidents. A reporter counts once per window: reporting again
 * within it answers the report already made. Enough distinct reporters open an
 * unconfirmed incident (user_generated), unless the provider shows one of its
 * own; while it is open, later reports only update its description.
 */
export async function reportProblem(ctx: DomainContext, company: Company, urlname: string, reporter: string, raw: unknown): Promise<UserReport> {
  const input = parseInput(userReportInput, raw ?? {});
  const service = await findVisibleService(ctx, company, urlname);
  await assertMayReadIncidentsOf(ctx, company, service);
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const ended = await lastEnded(trx, service.id, now);
    const since = Math.max(now - ctx.userReports.windowMs + 1, ended);
    const component = input.component || null;
    const earlier = await trx
      .selectFrom('user_reports')
      .select(['id', 'created_at', 'component'])
      .where('service_id', '=', service.id)
      .where('reporter', '=', reporter)
      .where('created_at', '>=', since)
      .orderBy('id')
      .execute();
    // A reporter counts once per window; a component it had not named yet in the window counts too.
    const fresh = earlier.length === 0 || (component !== null && !earlier.some((r) => r.component === component));
    let report = earlier[0];
    if (fresh) {
      const row = await trx
        .insertInto('user_reports')
        .values({ service_id: service.id, reporter, component, description: input.description ?? '', created_at: now })
        .returning(['id', 'created_at', 'component'])
        .executeTakeFirstOrThrow();
      report ??= row;
      await recordAudit(ctx, trx, {
        companyId: company.id,
        action: 'user_report.create',
        targetType: 'user_report',
        targetId: row.id,
        changes: created({ service: service.urlname, component, description: input.description ?? '' }),
      });
    }
    const tally = await tallySince(trx, service.id, since);
    await reportsToIncident(ctx, trx, service, { now, since, ended, tally });
    return { id: report!.id, service, createdAt: new Date(report!.created_at), reporters: tally.reporters, minutes: minutesBetween(since, now) };
  });
}

/**
 * Ends the open incident from user reports on a service: its provider opened
 * one of its own. Announced to the channels that follow the service.
 */
export async function endUserReportIncidents(
  ctx: DomainContext,
  trx: Kysely<Database>,
  serviceId: number,
  providerIncidentTitle: string,
  now: number,
): Promise<void> {
  const open = await openUserIncidents(trx).selectAll('incidents').where('service_id', '=', serviceId).execute();
  await resolveAll(ctx, trx, serviceId, open, `The provider opened its own incident: ${providerIncidentTitle}.`, now);
}

/**
 * Resolves the incidents from user reports whose service has had no report for
 * `resolveAfterMs`, and forgets reports that can no longer count. Returns how
 * many incidents it resolved.
 */
export async function resolveQuietUserReports(ctx: DomainContext): Promise<number> {
  const { windowMs, resolveAfterMs } = ctx.userReports;
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const open = await openUserIncidents(trx)
      .selectAll('incidents')
      .select((eb) =>
        eb
          .selectFrom('user_reports')
          .select((r) => r.fn.max('user_reports.created_at').as('at'))
          .whereRef('user_reports.service_id', '=', 'incidents.service_id')
          .as('last_report'),
      )
      .execute();
    const quiet = open.filter((incident) => Math.max(incident.last_report ?? 0, incident.created_at) <= now - resolveAfterMs);
    const description = `No new reports for ${minutes(Math.round(resolveAfterMs / MINUTE))}.`;
    for (const serviceId of new Set(quiet.map((incident) => incident.service_id))) {
      const ofService = quiet.filter((incident) => incident.service_id === serviceId).map(({ last_report: _, ...row }) => row);
      await resolveAll(ctx, trx, serviceId, ofService, description, now);
    }
    const resolved = quiet.length;
    // An open incident's description counts every report since it opened.
    await trx
      .deleteFrom('user_reports')
      .where('created_at', '<', now - Math.max(windowMs, resolveAfterMs))
      .where((eb) => eb('service_id', 'not in', openUserIncidents(trx).select('incidents.service_id')))
      .execute();
    return resolved;
  });
}

const openUserIncidents = (trx: Kysely<Database>) => trx.selectFrom('incidents').where('incidents.user_generated', '=', 1).where('incidents.resolved', '=', 0);

/** When the service's last incident ended: reports from before count toward no new incident. */
async function lastEnded(trx: Kysely<Database>, serviceId: number, now: number): Promise<number> {
  const row = await trx
    .selectFrom('incidents')
    .select((eb) => eb.fn.max('resolved_at').as('at'))
    .where('service_id', '=', serviceId)
    .where('resolved_at', '<=', now)
    .executeTakeFirst();
  return row?.at ?? 0;
}

interface Tally {
  reporters: number;
  /** Reported components, the most reported first: every one is named in the incident's description. */
  components: string[];
}

async function tallySince(trx: Kysely<Database>, serviceId: number, since: number): Promise<Tally> {
  const inSpan = trx.selectFrom('user_reports').where('service_id', '=', serviceId).where('created_at', '>=', since);
  const { n } = await inSpan.select((eb) => eb.fn.count<number>('reporter').distinct().as('n')).executeTakeFirstOrThrow();
  const components = await inSpan
    .select((eb) => ['component', eb.fn.count<number>('reporter').distinct().as('n'), eb.fn.min('id').as('first')])
    .where('component', 'is not', null)
    .groupBy('component')
    .orderBy('n', 'desc')
    .orderBy('first')
    .execute();
  return { reporters: Number(n), components: components.map((c) => c.component!) };
}

const minutesBetween = (since: number, now: number): number => Math.max(1, Math.ceil((now - since) / MINUTE));
const minutes = (n: number): string => plural(n, 'minute');
const inTheLast = (n: number): string => (n === 1 ? 'in the last minute' : `in the last ${n} minutes`);

function describeReports(tally: Tally, span: number): string {
  const people = plural(tally.reporters, 'person', 'people');
  const named = tally.components;
  return `${people} reported problems ${inTheLast(span)}${named.length ? `, with: ${named.join(', ')}` : ''}.`;
}

/** What the reports mean for the service's incidents, after one more. */
async function reportsToIncident(
  ctx: DomainContext,
  trx: Kysely<Database>,
  service: Service,
  at: { now: number; since: number; ended: number; tally: Tally },
): Promise<void> {
  const { now } = at;
  const open = await openUserIncidents(trx).selectAll('incidents').where('service_id', '=', service.id).executeTakeFirst();
  if (open) {
    const from = Math.max(open.created_at - ctx.userReports.windowMs + 1, at.ended);
    const description = describeReports(await tallySince(trx, service.id, from), minutesBetween(from, now));
    if (description === open.description) return;
    // Quietly: channels heard of it when it opened, and hear when it ends.
    await changeIncidents(
      ctx,
      trx,
      service.id,
      [{ before: { row: open, updates: null }, after: { ...open, description, updated_at: now }, posted: [], quiet: true }],
      now,
    );
    return;
  }
  if (at.tally.reporters < ctx.userReports.threshold) return;
  const providerOpen = await trx
    .selectFrom('incidents')
    .select('id')
    .where('service_id', '=', service.id)
    .where('user_generated', '=', 0)
    .where(openAt(now))
    .executeTakeFirst();
  if (providerOpen) return;

  const description = describeReports(at.tally, minutesBetween(at.since, now));
  const after: IncidentDraft = {
    title: clipText(`Users report problems with ${service.name}`, 255),
    status: 'minor',
    description,
    resolved: 0,
    url: null,
    user_generated: 1,
    severity_from_provider: null,
    components: '[]',
    external_key: null,
    created_at: now,
    updated_at: now,
    resolved_at: null,
  };
  await changeIncidents(ctx, trx, service.id, [{ before: null, after, posted: [{ stage: 'investigating', description, created_at: now }] }], now);
}

/** Resolves incidents from user reports of one service, each with a closing update. */
async function resolveAll(
  ctx: DomainContext,
  trx: Kysely<Database>,
  serviceId: number,
  open: readonly Selectable<IncidentsTable>[],
  description: string,
  now: number,
): Promise<void> {
  if (open.length === 0) return;
  const changes = open.map((row) => ({
    before: { row, updates: null },
    after: { ...row, resolved: 1, resolved_at: now, updated_at: now, description },
    posted: [{ stage: 'resolved' as const, description, created_at: now }],
  }));
  await changeIncidents(ctx, trx, serviceId, changes, now);
}

async function changeIncidents(ctx: DomainContext, trx: Kysely<Database>, serviceId: number, changes: ProposedChange[], now: number): Promise<void> {
  const scope = await lockScopeForMany(trx, serviceId, now);
  if (scope) await applyIncidentChanges(ctx, trx, scope, changes, { source: 'users', now });
}
