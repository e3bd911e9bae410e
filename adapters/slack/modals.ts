import type { App, SlackViewMiddlewareArgs, ViewOutput, ViewSubmitAction, types as slack, webApi } from '@slack/bolt';
import { RESOLUTION_STAGES, SEVERITIES } from '../../src/domain/model/incident.js';
import type { ResolutionStage, Severity } from '../../src/domain/model/incident.js';
import { DESCRIPTION_MAX, TITLE_MAX } from '../../src/domain/incidents/incident-input.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import { FALLBACK_FIELD } from '../chat/forms.js';
import { SEVERITY_LABEL, STAGE_LABEL } from '../chat/labels.js';
import type { FormKind, FormValues, IncidentForm } from '../chat/reply.js';
import { FORM_FIELDS } from '../chat/reply.js';
import { runVerb } from '../chat/verbs.js';
import { esc } from './dialect.js';
import type { SlackMessage } from './render.js';
import { replyMessage } from './render.js';
import { slackRequest } from './request.js';
import type { SlackDeps } from './request.js';

/** The callback id of each form's modal. */
const VIEW: Record<FormKind, string> = { new: 'incident_new', update: 'incident_update', resolve: 'incident_resolve' };
const KIND_OF_VIEW = new Map(Object.entries(VIEW).map(([kind, id]) => [id, kind as FormKind]));

/** What a modal carries from where it was opened to its submission. */
interface ModalMeta {
  /** Where the confirmation goes (the command's or the button's response_url). */
  responseUrl: string | null;
  channelId: string;
  incidentId: number | null;
  /** The stage the form showed, to tell whether the user changed it. */
  stage: ResolutionStage | null;
  /** A new incident's lead, named with `/incident new … @person`. */
  lead: string | null;
}

// Every input's element has this action id; blocks are told apart by block_id, named after the form's fields.
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

const input = (blockId: string, label: string, element: slack.InputBlock['element'], optional = false): slack.InputBlock => ({
  type: 'input',
  block_id: blockId,
  label: plain(label),
  element,
  optional,
});

const severity = (initial: Severity) =>
  input(
    'severity',
    'Severity',
    select(
      SEVERITIES.map((s) => option(s, SEVERITY_LABEL[s])),
      initial,
    ),
  );
const stage = (initial: ResolutionStage) =>
  input(
    'stage',
    'Stage',
    select(
      RESOLUTION_STAGES.map((s) => option(s, STAGE_LABEL[s])),
      initial,
    ),
  );

function readMeta(raw: string): ModalMeta {
  try {
    const parsed = JSON.parse(raw) as Partial<ModalMeta>;
    return {
      responseUrl: typeof parsed.responseUrl === 'string' ? parsed.responseUrl : null,
      channelId: typeof parsed.channelId === 'string' ? parsed.channelId : '',
      incidentId: typeof parsed.incidentId === 'number' ? parsed.incidentId : null,
      stage: RESOLUTION_STAGES.find((s) => s === parsed.stage) ?? null,
      lead: typeof parsed.lead === 'string' ? parsed.lead : null,
    };
  } catch {
    return { responseUrl: null, channelId: '', incidentId: null, stage: null, lead: null };
  }
}

/** The modal of a form. */
function formView(form: IncidentForm, meta: ModalMeta): slack.ModalView {
  const i = form.incident;
  let title: string;
  let submit: string;
  let blocks: slack.KnownBlock[];
  if (form.kind === 'new') {
    const choices = form.services.slice(0, OPTIONS_MAX).map((s) => option(String(s.id), s.name));
    [title, submit] = ['New incident', 'Open incident'];
    blocks = [
      input('service', 'Service', select(choices, form.service ? String(form.service.id) : null, 'Which service?')),
      input('title', 'Title', text({ max: TITLE_MAX, placeholder: 'What is wrong, in a few words' })),
      severity('minor'),
      stage(form.stage ?? 'investigating'),
      input('description', 'Description', text({ multiline: true, max: DESCRIPTION_MAX, placeholder: 'What users see, what you know' }), true),
    ];
  } else if (form.kind === 'update') {
    [title, submit] = [`Update #${i!.id}`, 'Save'];
    blocks = [
      input('title', 'Title', text({ max: TITLE_MAX, initial: i!.title })),
      severity(i!.status),
      stage(form.stage ?? 'investigating'),
      input('description', 'Update', text({ multiline: true, max: DESCRIPTION_MAX, placeholder: 'What changed (posted as an update)' }), true),
    ];
  } else {
    [title, submit] = [`Resolve #${i!.id}`, 'Resolve'];
    blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: `Resolve *#${i!.id}*: ${esc(i!.title)}?` } },
      input('message', 'Message', text({ multiline: true, max: DESCRIPTION_MAX, placeholder: 'Resolved.' }), true),
    ];
  }
  return {
    type: 'modal',
    callback_id: VIEW[form.kind],
    title: plain(title),
    submit: plain(submit),
    close: plain('Cancel'),
    private_metadata: JSON.stringify({ ...meta, incidentId: i?.id ?? null, stage: form.stage, ...(form.lead ? { lead: form.lead } : {}) }),
    blocks,
  };
}

/** Opens a form's modal with the trigger_id of the command or button that asked for it. */
export async function openModal(
  client: webApi.WebClient,
  form: IncidentForm,
  opener: { triggerId: string; responseUrl: string | null; channelId: string },
): Promise<void> {
  const meta = { responseUrl: opener.responseUrl, channelId: opener.channelId, incidentId: null, stage: null, lead: null };
  await client.views.open({ trigger_id: opener.triggerId, view: formView(form, meta) });
}

/** The submitted values by field: a text input's value or a select's chosen option; absent when left empty. */
function submittedValues(view: ViewOutput): FormValues {
  const values: FormValues = {};
  for (const field of FORM_FIELDS) {
    const v = view.state.values[field]?.[VALUE];
    const value = v?.value ?? v?.selected_option?.value ?? undefined;
    if (value !== undefined && value !== null) values[field] = value;
  }
  return values;
}

/** The confirmation after a form closed, through the response_url of the command or button that opened it. */
async function confirm(responseUrl: string | null, message: SlackMessage, logger: Logger): Promise<void> {
  if (!responseUrl) return;
  try {
    const res = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
    });
    // An expired response_url (30 minutes) refuses; the change itself is done.
    if (!res.ok) logger.info(`slack: the confirmation was refused with HTTP ${res.status}`);
  } catch (error) {
    logger.error('slack: the confirmation could not be sent', error);
  }
}

/**
 * A form's submission runs before the ack: only the ack can keep the form
 * open with errors under its fields. The domain call is local and fast.
 */
async function onSubmit(deps: SlackDeps, kind: FormKind, args: SlackViewMiddlewareArgs<ViewSubmitAction> & { client: webApi.WebClient }) {
  const { ack, body, view, client } = args;
  const meta = readMeta(view.private_metadata);
  const teamId = body.team?.id ?? body.user.team_id ?? '';
  const req = slackRequest(deps, { teamId, channelId: meta.channelId, userId: body.user.id, triggerId: body.trigger_id }, client);
  const ref = { kind, incidentId: meta.incidentId, serviceId: null, shownStage: meta.stage, lead: meta.lead };
  const reply = await runVerb(req, { verb: 'submit', ref, values: submittedValues(view) }, `the ${kind} incident form`);
  if (reply.kind === 'error') {
    const errors = Object.keys(reply.fields).length > 0 ? reply.fields : { [FALLBACK_FIELD[kind]]: reply.text };
    await ack({ response_action: 'errors', errors: errors as Record<string, string> });
    return;
  }
  await ack();
  if (reply.kind !== 'form') await confirm(meta.responseUrl, replyMessage(reply), deps.logger);
}

export function registerModals(app: App, deps: SlackDeps): void {
  for (const [callbackId, kind] of KIND_OF_VIEW) {
    app.view<ViewSubmitAction>(callbackId, (args) => onSubmit(deps, kind, args));
  }
}
