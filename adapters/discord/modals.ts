import { ComponentType, InteractionResponseType, LabelBuilder, ModalBuilder, StringSelectMenuBuilder, TextInputBuilder, TextInputStyle } from 'discord.js';
import type { APIModalInteractionResponse, APIModalSubmission } from 'discord.js';
import { RESOLUTION_STAGES, SEVERITIES } from '../../src/domain/model/incident.js';
import type { ResolutionStage, Severity } from '../../src/domain/model/incident.js';
import { TITLE_MAX } from '../../src/domain/incidents/incident-input.js';
import type { Service } from '../../src/domain/model/service.js';
import { SEVERITY_LABEL, STAGE_LABEL } from '../chat/labels.js';
import type { FormKind, FormRef, FormValues, IncidentForm } from '../chat/reply.js';
import { FORM_FIELDS } from '../chat/reply.js';
import { clipWithEllipsis as clip } from '../../src/domain/clip-text.js';

// Discord caps a text input at 4,000 characters, a modal title at 45, and a select at 25 options.
const TEXT_MAX = 4000;
const MODAL_TITLE_MAX = 45;
const OPTIONS_MAX = 25;

/**
 * The custom ids of the incident modals and of the message buttons that open
 * them. An update modal also carries the stage it showed, so that a stage
 * left as it was does not undo a move someone else made meanwhile.
 */
export const customIds = {
  newIncident: (serviceId: number | null, lead?: string | null) => `incident:new:${serviceId ?? 0}${lead ? `:lead:${lead}` : ''}`,
  updateIncident: (id: number, stage?: ResolutionStage | null) => `incident:update:${id}${stage ? `:${stage}` : ''}`,
  resolveIncident: (id: number) => `incident:resolve:${id}`,
  reportProblem: (urlname: string) => `report:${urlname}`,
};

// Discord refuses a component whose custom id is over 100 characters.
export const CUSTOM_ID_MAX = 100;

/** The service a "Report a problem" button names; null for any other id. */
export function parseReportId(customId: string): string | null {
  const m = /^report:([a-z0-9-]{1,100})$/.exec(customId);
  return m ? m[1]! : null;
}

/** What a button or a submitted modal names; null for an id statusbot never made. */
export function parseCustomId(customId: string): FormRef | null {
  const m = /^incident:(new|update|resolve):(\d{1,15})(?::([a-z]+))?(?::(\d{15,21}))?$/.exec(customId);
  if (!m) return null;
  const kind = m[1] as FormKind;
  const id = Number(m[2]);
  if (kind === 'new') {
    const lead = m[3] === 'lead' && m[4] ? m[4] : null;
    return { kind, incidentId: null, serviceId: id === 0 ? null : id, shownStage: null, ...(lead ? { lead } : {}) };
  }
  const shownStage = RESOLUTION_STAGES.find((s) => s === m[3]) ?? null;
  return { kind, incidentId: id, serviceId: null, shownStage };
}

const titleInput = (value?: string) =>
  new LabelBuilder().setLabel('Title').setTextInputComponent((t) => {
    t.setCustomId('title').setStyle(TextInputStyle.Short).setRequired(true).setMaxLength(TITLE_MAX);
    return value ? t.setValue(clip(value, TITLE_MAX)) : t;
  });

const select = (label: string, id: string, options: { label: string; value: string; default: boolean }[]) =>
  new LabelBuilder().setLabel(label).setStringSelectMenuComponent(new StringSelectMenuBuilder().setCustomId(id).addOptions(options));

const severitySelect = (current: Severity) =>
  select(
    'Severity',
    'severity',
    SEVERITIES.map((s) => ({ label: SEVERITY_LABEL[s], value: s, default: s === current })),
  );
const stageSelect = (current: ResolutionStage) =>
  select(
    'Stage',
    'stage',
    RESOLUTION_STAGES.map((s) => ({ label: STAGE_LABEL[s], value: s, default: s === current })),
  );
/** The company's services, the chosen one among them even past the select's limit. */
function serviceSelect(services: readonly Service[], chosen: Service | null) {
  const shown = services.slice(0, OPTIONS_MAX);
  if (chosen && !shown.some((s) => s.id === chosen.id)) shown[shown.length - 1] = chosen;
  return select(
    'Service',
    'service',
    shown.map((s) => ({ label: clip(s.name, 100), value: String(s.id), default: s.id === chosen?.id })),
  );
}

const messageInput = (id: 'description' | 'message', label: string, placeholder: string) =>
  new LabelBuilder()
    .setLabel(label)
    .setTextInputComponent(
      new TextInputBuilder().setCustomId(id).setStyle(TextInputStyle.Paragraph).setRequired(false).setMaxLength(TEXT_MAX).setPlaceholder(placeholder),
    );

const modal = (customId: string, title: string, labels: LabelBuilder[]): APIModalInteractionResponse => ({
  type: InteractionResponseType.Modal,
  data: new ModalBuilder().setCustomId(customId).setTitle(clip(title, MODAL_TITLE_MAX)).addLabelComponents(labels).toJSON(),
});

/** The modal of a form. */
export function formModal(form: IncidentForm): APIModalInteractionResponse {
  const i = form.incident;
  if (form.kind === 'new') {
    return modal(customIds.newIncident(form.service?.id ?? null, form.lead), form.service ? `New incident: ${form.service.name}` : 'New incident', [
      serviceSelect(form.services, form.service),
      titleInput(),
      severitySelect('minor'),
      stageSelect(form.stage ?? 'investigating'),
      messageInput('description', 'Description', 'What is happening?'),
    ]);
  }
  if (form.kind === 'update') {
    return modal(customIds.updateIncident(i!.id, form.stage), `Update #${i!.id} ${i!.title}`, [
      titleInput(i!.title),
      severitySelect(i!.status),
      stageSelect(form.stage ?? 'investigating'),
      messageInput('description', 'Update', 'Posted to the timeline; leave empty to change only title or severity'),
    ]);
  }
  return modal(customIds.resolveIncident(i!.id), `Resolve #${i!.id} ${i!.title}`, [messageInput('message', 'Closing message', 'Resolved.')]);
}

/** The submitted values by field: text inputs give their text, selects their first value; in labels or legacy action rows. */
export function modalValues(data: APIModalSubmission): FormValues {
  const values: FormValues = {};
  const take = (c: { type: ComponentType; custom_id: string; value?: unknown; values?: unknown }) => {
    const field = FORM_FIELDS.find((f) => f === c.custom_id);
    if (!field) return;
    if (c.type === ComponentType.TextInput && typeof c.value === 'string') values[field] = c.value;
    else if (Array.isArray(c.values) && typeof c.values[0] === 'string') values[field] = c.values[0];
  };
  for (const top of data.components) {
    if (top.type === ComponentType.Label) take(top.component);
    else if (top.type === ComponentType.ActionRow) top.components.forEach(take);
  }
  return values;
}
