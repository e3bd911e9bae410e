import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import { DomainError } from '../errors.js';
import type { FieldIssue } from '../errors.js';

/** The label that names an alert's service unless the company's config names another. */
export const DEFAULT_SERVICE_LABEL = 'service';

const settingsOf = prepared<'company', { alert_service_label: string; alert_default_service_id: number | null }>((db, p) =>
  db.selectFrom('companies').select(['alert_service_label', 'alert_default_service_id']).where('id', '=', p.company),
);
const serviceNamed = prepared<'company' | 'name', { id: number }>((db, p) =>
  db
    .selectFrom('services')
    .select('id')
    .where('company_id', '=', p.company)
    .where((eb) => eb.or([eb('urlname', '=', p.name), eb('name', '=', p.name)]))
    .orderBy('id')
    .limit(1),
);
const ownService = prepared<'company' | 'id', { id: number }>((db, p) =>
  db.selectFrom('services').select('id').where('id', '=', p.id).where('company_id', '=', p.company),
);

/** Where the label was read, for the error that names it. */
export interface LabelSource {
  labels: Readonly<Record<string, string>>;
  path: readonly (string | number)[];
}

/**
 * The custom service an alert group is about: the company's custom service
 * whose urlname or name is the value of the company's service label (read from
 * the first of `sources` that has it), else the company's default service.
 * Neither: invalid input naming the label.
 */
export async function alertServiceOf(db: Kysely<Database>, company: Pick<Company, 'id'>, sources: readonly LabelSource[]): Promise<number> {
  const [settings] = await settingsOf(db, { company: company.id });
  if (!settings) throw new Error(`company ${company.id} has no row`);
  const label = settings.alert_service_label;
  const found = sources.find((s) => typeof s.labels[label] === 'string' && s.labels[label] !== '');
  const value = found?.labels[label];
  if (value !== undefined) {
    const [service] = await serviceNamed(db, { company: company.id, name: value });
    if (service) return Number(service.id);
  }
  if (settings.alert_default_service_id !== null) {
    const [fallback] = await ownService(db, { company: company.id, id: settings.alert_default_service_id });
    if (fallback) return Number(fallback.id);
  }
  const message =
    value === undefined
      ? `the alerts carry no label ${label}, which names the custom service they are about (its urlname or name), and your company has no alerts.default_service_id`
      : `the label ${label} is ${JSON.stringify(value)}, which is the urlname or name of no custom service of yours, and your company has no alerts.default_service_id`;
  const issue: FieldIssue = { path: found ? [...found.path, label] : [...(sources[0]?.path ?? []), label], message };
  throw new DomainError('invalid_input', message, [issue]);
}
