import {
  ComponentType,
  InteractionResponseType,
  LabelBuilder,
  ModalBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import type { APIInteractionResponse, APIModalInteractionResponse, APIModalSubmission } from 'discord.js';
import type { Company } from '../../src/domain/companies/company.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { Incident, ResolutionStage, Severity } from '../../src/domain/incidents/incident.js';
import { RESOLUTION_STAGES, SEVERITIES } from '../../src/domain/incidents/incident.js';
import { TITLE_MAX } from '../../src/domain/incidents/incident-input.js';
import { createIncident, getIncident, resolveIncident, updateIncident } from '../../src/domain/incidents/incident-service.js';
import type { Service } from '../../src/domain/services/service.js';
import { customIds, parseCustomId } from './custom-ids.js';
import { SEVERITY_LABEL, STAGE_LABEL } from '../labels.js';
import { clip } from './embeds.js';
import { ephemeral } from './replies.js';

// Discord caps a text input at 4,000 characters and a modal title at 45.
const TEXT_MAX = 4000;
const MODAL_TITLE_MAX = 45;

const titleInput = (value?: string) =>
  new LabelBuilder().setLabel('Title').setTextInputComponent((t) => {
    t.setCustomId('title').setStyle(TextInputStyle.Short).setRequired(true).setMaxLength(TITLE_MAX);
    return value ? t.setValue(clip(value, TITLE_MAX)) : t;
  });

const severitySelect = (current: Severity) =>
  new LabelBuilder().setLabel('Severity').setStringSelectMenuComponent(
    new StringSelectMenuBuilder()
      .setCustomId('severity')
      .addOptions(SEVERITIES.map((s) => ({ label: SEVERITY_LABEL[s], value: s, default: s === current }))),
  );

const stageSelect = (current: ResolutionStage) =>
  new LabelBuilder().setLabel('Stage').setStringSelectMenuComponent(
    new StringSelectMenuBuilder()
      .setCustomId('stage')
      .addOptions(RESOLUTION_STAGES.map((s) => ({ label: STAGE_LABEL[s], value: s, default: s === current }))),
  );

const messageInput = (label: string, placeholder: string) =>
  new LabelBuilder().setLabel(label).setTextInputComponent(
    new TextInputBuilder()
      .setCustomId('description')
      .setStyle(TextInputStyle.Paragraph)
      .setRequired(false)
      .setMaxLength(TEXT_MAX)
      .setPlaceholder(placeholder),
  );

const modal = (customId: string, title: string, labels: LabelBuilder[]): APIModalInteractionResponse => ({
  type: InteractionResponseType.Modal,
  data: new ModalBuilder().setCustomId(customId).setTitle(clip(title, MODAL_TITLE_MAX)).addLabelComponents(labels).toJSON(),
});

export const newIncidentModal = (service: Service): APIModalInteractionResponse =>
  modal(customIds.newIncident(service.id), `New incident: ${service.name}`, [
    titleInput(),
    severitySelect('minor'),
    stageSelect('investigating'),
    messageInput('Description', 'What is happening?'),
  ]);

export const updateIncidentModal = (incident: Incident): APIModalInteractionResponse =>
  modal(customIds.updateIncident(incident.id), `Update #${incident.id} ${incident.title}`, [
    titleInput(incident.title),
    severitySelect(incident.status),
    stageSelect(incident.updates.at(-1)?.stage ?? 'investigating'),
    messageInput('Update', 'Posted to the timeline; leave empty to change only title or severity'),
  ]);

export const resolveIncidentModal = (incident: Incident): APIModalInteractionResponse =>
  modal(customIds.resolveIncident(incident.id), `Resolve #${incident.id} ${incident.title}`, [
    messageInput('Closing message', 'Resolved.'),
  ]);

/** The submitted values by custom id: text inputs give a string, selects their values; in labels or legacy action rows. */
export function modalValues(data: APIModalSubmission): Map<string, string | string[]> {
  const values = new Map<string, string | string[]>();
  const take = (c: { type: ComponentType; custom_id: string; value?: unknown; values?: unknown }) => {
    if (c.type === ComponentType.TextInput && typeof c.value === 'string') values.set(c.custom_id, c.value);
    else if (Array.isArray(c.values)) values.set(c.custom_id, c.values.filter((v): v is string => typeof v === 'string'));
  };
  for (const top of data.components) {
    if (top.type === ComponentType.Label) take(top.component);
    else if (top.type === ComponentType.ActionRow) top.components.forEach(take);
  }
  return values;
}

const text = (values: Map<string, string | string[]>, id: string): string | undefined => {
  const v = values.get(id);
  return typeof v === 'string' ? v : undefined;
};
const choice = (values: Map<string, string | string[]>, id: string): string | undefined => {
  const v = values.get(id);
  return Array.isArray(v) ? v[0] : v;
};

/** Opens the modal behind an incident message's button. */
export async function modalForButton(ctx: DomainContext, company: Company, customId: string): Promise<APIInteractionResponse> {
  const parsed = parseCustomId(customId);
  if (!parsed || parsed.action === 'new') return ephemeral('This button is no longer supported.');
  const incident = await getIncident(ctx, company, parsed.id);
  return parsed.action === 'update' ? updateIncidentModal(incident) : resolveIncidentModal(incident);
}

/** Applies a submitted incident modal through the domain, which validates every field. */
export async function submitIncidentModal(ctx: DomainContext, company: Company, data: APIModalSubmission): Promise<APIInteractionResponse> {
  const parsed = parseCustomId(data.custom_id);
  if (!parsed) return ephemeral('This form is no longer supported.');
  const values = modalValues(data);
  const description = text(values, 'description') ?? '';
  switch (parsed.action) {
    case 'new': {
      const incident = await createIncident(ctx, company, {
        service_id: parsed.id,
        title: text(values, 'title'),
        status: choice(values, 'severity'),
        resolution_stage: choice(values, 'stage'),
        description,
      });
      return ephemeral(`Opened incident #${incident.id} on ${incident.serviceName}: ${clip(incident.title, 200)}`);
    }
    case 'update': {
      const current = await getIncident(ctx, company, parsed.id);
      const stage = choice(values, 'stage');
      const currentStage = current.updates.at(-1)?.stage;
      const raw: Record<string, unknown> = { title: text(values, 'title'), status: choice(values, 'severity') };
      // A new timeline entry when there is a message or the stage moved; else only title and severity change.
      if (description.trim() !== '' || (stage !== undefined && stage !== currentStage)) {
        raw.description = description;
        raw.resolution_stage = stage ?? currentStage;
      }
      const incident = await updateIncident(ctx, company, parsed.id, raw);
      return ephemeral(`Updated incident #${incident.id}${incident.resolved ? ' (resolved)' : ''}.`);
    }
    case 'resolve': {
      const incident = await resolveIncident(ctx, company, parsed.id, description);
      return ephemeral(`Resolved incident #${incident.id}: ${clip(incident.title, 200)}`);
    }
  }
}
