import type { Company } from '../../src/domain/model/company.js';
import { DomainError, invalidInput } from '../../src/domain/errors.js';
import { createIncident, getIncident, listOpenIncidents, resolveIncident, updateIncident } from '../../src/domain/incidents/incident-service.js';
import { listCustomServices } from '../../src/domain/services/service-queries.js';
import type { Service } from '../../src/domain/model/service.js';
import { setIncidentLead } from '../../src/domain/incident-chat/set-incident-lead.js';
import { createInput, updateInput } from './forms.js';
import type { ChatReply, FormKind, FormRef, FormValues } from './reply.js';
import { textReply } from './reply.js';
import type { ChatRequest } from './chat-request.js';
import { incidentDone, noCustomServices } from './wording.js';

export async function listIncidents(req: ChatRequest, company: Company): Promise<ChatReply> {
  return { kind: 'incidents', incidents: await listOpenIncidents(req.ctx, company) };
}

/** One incident with its timeline; its buttons only where the company may change it (its own services). */
export async function showIncident(req: ChatRequest, company: Company, id: number): Promise<ChatReply> {
  const incident = await getIncident(req.ctx, company, id);
  const own = (await listCustomServices(req.ctx, company)).some((s) => s.id === incident.serviceId);
  return { kind: 'incident', incident, actions: own };
}

export async function resolve(req: ChatRequest, company: Company, id: number, message: string | undefined): Promise<ChatReply> {
  const incident = await resolveIncident(req.ctx, company, id, message);
  return textReply(incidentDone(req.dialect, 'Resolved', incident));
}

/** A custom service of the company by urlname or name (creating incidents takes nothing else). */
function customService(services: readonly Service[], ref: string): Service {
  const wanted = ref.trim().toLowerCase();
  const found = services.find((s) => s.urlname === wanted || s.name.toLowerCase() === wanted || String(s.id) === wanted);
  if (found) return found;
  const known = services.map((s) => s.urlname).join(', ') || 'none are configured';
  throw invalidInput(['service'], `service must be one of your company's services (${known})`);
}

const stageOf = (incident: { updates: readonly { stage: FormRef['shownStage'] }[] }) => incident.updates.at(-1)?.stage ?? null;

/** The form to open: a new incident's (on a chosen service, or to choose one), or one about an incident of the company. */
export async function openForm(req: ChatRequest, company: Company, kind: FormKind, target: string | number | null, lead?: string): Promise<ChatReply> {
  if (kind === 'new') {
    const services = await listCustomServices(req.ctx, company);
    if (services.length === 0) return textReply(noCustomServices(req.dialect));
    const service = target === null ? (services.length === 1 ? services[0]! : null) : customService(services, String(target));
    return { kind: 'form', form: { kind, incident: null, services, service, stage: 'investigating', lead: lead ?? null } };
  }
  if (typeof target !== 'number') throw new DomainError('not_found', 'The incident of this form is unknown');
  // The lead of an existing incident is named at once; the form is for what else changes.
  if (lead) await setIncidentLead(req.ctx, company, target, req.dialect.platform, { lead });
  const incident = await getIncident(req.ctx, company, target);
  return { kind: 'form', form: { kind, incident, services: [], service: null, stage: stageOf(incident) ?? 'investigating' } };
}

/** Applies a submitted form through the domain, which validates every field. */
export async function submitForm(req: ChatRequest, company: Company, ref: FormRef, values: FormValues): Promise<ChatReply> {
  const { ctx, dialect } = req;
  if (ref.kind === 'new') {
    const opened = await createIncident(ctx, company, createInput(ref, values));
    if (ref.lead) await setIncidentLead(ctx, company, opened.id, dialect.platform, { lead: ref.lead });
    return textReply(incidentDone(dialect, 'Opened', opened));
  }
  if (ref.incidentId === null) throw new DomainError('not_found', 'The incident of this form is unknown');
  if (ref.kind === 'resolve') {
    return textReply(incidentDone(dialect, 'Resolved', await resolveIncident(ctx, company, ref.incidentId, values.message)));
  }
  const current = ref.shownStage === null ? stageOf(await getIncident(ctx, company, ref.incidentId)) : ref.shownStage;
  const incident = await updateIncident(ctx, company, ref.incidentId, updateInput(ref, values, current));
  return textReply(incidentDone(dialect, 'Updated', incident));
}
