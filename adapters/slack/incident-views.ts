import type { types as slack, ViewOutput } from '@slack/bolt';
import { RESOLUTION_STAGES, SEVERITIES } from '../../src/domain/incidents/incident.js';
import type { Incident, ResolutionStage, Severity } from '../../src/domain/incidents/incident.js';
import { DESCRIPTION_MAX, TITLE_MAX } from '../../src/domain/incidents/incident-input.js';
import type { Service } from '../../src/domain/services/service.js';
import { SEVERITY_LABEL, STAGE_LABEL } from '../labels.js';
import { esc } from './blocks.js';

export const VIEW_NEW_INCIDENT = 'incident_new';
export const VIEW_UPDATE_INCIDENT = 'incident_update';
export const VIEW_RESOLVE_INCIDENT = 'incident_resolve';

/** What a modal carries from where it was opened to its submission. */
export interface ModalMeta {
  /** Where the confirmation goes (the command's or the button's response_url). */
  responseUrl: string | null;
  incidentId: number | null;
  /** The stage the form showed, to tell whether the user changed it. */
  stage: ResolutionStage | null;
}

// Every input's element has this action id; blocks are told apart by block_id.
const VALUE = 'value';
// Block Kit allows 100 options in a static select.
const OPTIONS_MAX = 100;

const plain = (text: string): slack.PlainTextElement => ({ type: 'plain_text', text });
const option = (value: string, label: string): slack.PlainTextOption => ({ value, text: plain(label) });

function select(options: slack.PlainTextOption[], initial: string | null, placeholder?: string): slack.StaticSelect {
  const chosen = options.find((o) => o.value === initial);
  return {
    type: 'static_select',
    action_id: VALUE,
    options,
    ...(chosen ? { initial_option: chosen } : {}),
    ...(placeholder ? { placeholder: plain(placeholder) } : {}),
  };
}

function text(options: { initial?: string; multiline?: boolean; max: number; placeholder?: string }): slack.PlainTextInput {
  return {
    type: 'plain_text_input',
    action_id: VALUE,
    max_length: options.max,
    ...(options.multiline ? { multiline: true } : {}),
    ...(options.initial ? { initial_value: options.initial } : {}),
    ...(options.placeholder ? { placeholder: plain(options.placeholder) } : {}),
  };
}

const input = (
  blockId: string,
  label: string,
  element: slack.InputBlock['element'],
  optional = false,
): slack.InputBlock => ({ type: 'input', block_id: blockId, label: plain(label), element, optional });

const severity = (initial: Severity) =>
  input('severity', 'Severity', select(SEVERITIES.map((s) => option(s, SEVERITY_LABEL[s])), initial));
const stage = (initial: ResolutionStage) =>
  input('stage', 'Stage', select(RESOLUTION_STAGES.map((s) => option(s, STAGE_LABEL[s])), initial));

const metadata = (meta: ModalMeta): string => JSON.stringify(meta);

export function readMeta(raw: string): ModalMeta {
  try {
    const parsed = JSON.parse(raw) as Partial<ModalMeta>;
    return {
      responseUrl: typeof parsed.responseUrl === 'string' ? parsed.responseUrl : null,
      incidentId: typeof parsed.incidentId === 'number' ? parsed.incidentId : null,
      stage: typeof parsed.stage === 'string' ? parsed.stage : null,
    };
  } catch {
    return { responseUrl: null, incidentId: null, stage: null };
  }
}

function modal(callbackId: string, title: string, submit: string, blocks: slack.KnownBlock[], meta: ModalMeta): slack.ModalView {
  return {
    type: 'modal',
    callback_id: callbackId,
    title: plain(title),
    submit: plain(submit),
    close: plain('Cancel'),
    private_metadata: metadata(meta),
    blocks,
  };
}

const current = (incident: Incident): ResolutionStage | null => incident.updates.at(-1)?.stage ?? null;

export function newIncidentView(services: readonly Service[], responseUrl: string | null): slack.ModalView {
  const choices = services.slice(0, OPTIONS_MAX).map((s) => option(String(s.id), s.name));
  return modal(
    VIEW_NEW_INCIDENT,
    'New incident',
    'Open incident',
    [
      input('service', 'Service', select(choices, services.length === 1 ? String(services[0]!.id) : null, 'Which service?')),
      input('title', 'Title', text({ max: TITLE_MAX, placeholder: 'What is wrong, in a few words' })),
      severity('minor'),
      stage('investigating'),
      input('description', 'Description', text({ multiline: true, max: DESCRIPTION_MAX, placeholder: 'What users see, what you know' }), true),
    ],
    { responseUrl, incidentId: null, stage: null },
  );
}

export function updateIncidentView(incident: Incident, responseUrl: string | null): slack.ModalView {
  const stageNow = current(incident) ?? 'investigating';
  return modal(
    VIEW_UPDATE_INCIDENT,
    `Update #${incident.id}`,
    'Save',
    [
      input('title', 'Title', text({ max: TITLE_MAX, initial: incident.title })),
      severity(incident.status),
      stage(stageNow),
      input('description', 'Update', text({ multiline: true, max: DESCRIPTION_MAX, placeholder: 'What changed (posted as an update)' }), true),
    ],
    { responseUrl, incidentId: incident.id, stage: stageNow },
  );
}

export function resolveIncidentView(incident: Incident, responseUrl: string | null): slack.ModalView {
  return modal(
    VIEW_RESOLVE_INCIDENT,
    `Resolve #${incident.id}`,
    'Resolve',
    [
      { type: 'section', text: { type: 'mrkdwn', text: `Resolve *#${incident.id}*: ${esc(incident.title)}?` } },
      input('message', 'Message', text({ multiline: true, max: DESCRIPTION_MAX, placeholder: 'Resolved.' }), true),
    ],
    { responseUrl, incidentId: incident.id, stage: current(incident) },
  );
}

/** The submitted values by block: a text input's value or a select's chosen option; undefined when left empty. */
export function submittedValues(view: ViewOutput): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const [blockId, actions] of Object.entries(view.state.values)) {
    const v = actions[VALUE];
    values[blockId] = v?.value ?? v?.selected_option?.value ?? undefined;
  }
  return values;
}

/** The block of each input field of the domain, for inline errors. */
export const INCIDENT_FIELD_BLOCKS: Readonly<Record<string, string>> = {
  service_id: 'service',
  title: 'title',
  status: 'severity',
  resolution_stage: 'stage',
  description: 'description',
};
export const RESOLVE_FIELD_BLOCKS: Readonly<Record<string, string>> = { description: 'message' };
