import type { ResolutionStage } from '../../src/domain/model/incident.js';
import type { DomainError } from '../../src/domain/errors.js';
import type { ChatDialect } from './dialect.js';
import type { FormField, FormKind, FormRef, FormValues } from './reply.js';

/** Which input of a form each field of the domain's incident input comes from. */
const FIELD_OF: Readonly<Record<string, FormField>> = {
  service_id: 'service',
  title: 'title',
  status: 'severity',
  resolution_stage: 'stage',
  description: 'description',
};

/** The input that shows a form's errors when they belong to no field of it. */
export const FALLBACK_FIELD: Record<FormKind, FormField> = { new: 'title', update: 'title', resolve: 'message' };

/** Each field issue of the domain under the input it came from; anything else under the form's fallback input. */
export function formErrors(d: ChatDialect, error: DomainError, kind: FormKind): Partial<Record<FormField, string>> {
  const errors: Partial<Record<FormField, string>> = {};
  const add = (field: FormField, message: string) => {
    errors[field] = errors[field] ? `${errors[field]}; ${message}` : message;
  };
  if (error.code === 'invalid_input' && error.issues.length > 0) {
    for (const issue of error.issues) {
      const named = FIELD_OF[String(issue.path[0])];
      add(kind === 'resolve' && named === 'description' ? 'message' : (named ?? FALLBACK_FIELD[kind]), d.markup.text(issue.message));
    }
  }
  return errors;
}

const defined = (input: Record<string, unknown>) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));

/** A new incident's form as the domain's create input; the domain validates every field. */
export function createInput(ref: FormRef, v: FormValues): Record<string, unknown> {
  const service = v.service ?? (ref.serviceId === null ? undefined : String(ref.serviceId));
  return defined({
    service_id: service === undefined ? undefined : /^\d{1,15}$/.test(service) ? Number(service) : service,
    title: v.title ?? '',
    status: v.severity,
    resolution_stage: v.stage,
    description: v.description,
  });
}

/**
 * An update form as the domain's update input. A new timeline entry only when
 * there is something to say: a message, or a stage other than the one the
 * form showed (so that a stage moved by someone else meanwhile is not undone).
 */
export function updateInput(ref: FormRef, v: FormValues, currentStage: ResolutionStage | null): Record<string, unknown> {
  const message = v.description?.trim() ?? '';
  const shown = ref.shownStage ?? currentStage;
  const update = message !== '' || (v.stage !== undefined && v.stage !== shown);
  return defined({
    title: v.title ?? '',
    status: v.severity,
    ...(update ? { description: message, resolution_stage: v.stage ?? shown ?? undefined } : {}),
  });
}
