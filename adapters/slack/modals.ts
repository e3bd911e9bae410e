import type {
  App,
  BlockButtonAction,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
  webApi,
} from '@slack/bolt';
import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import type { Company } from '../../src/domain/companies/company.js';
import type { DomainContext } from '../../src/domain/context.js';
import { DomainError } from '../../src/domain/errors.js';
import { createIncident, getIncident, resolveIncident, updateIncident } from '../../src/domain/incidents/incident-service.js';
import { listCustomServices } from '../../src/domain/services/service-queries.js';
import type { Logger } from '../../src/core/logger.js';
import { ACTION_POST_UPDATE, ACTION_RESOLVE, NOT_LINKED, esc } from './blocks.js';
import type { SlackMessage } from './blocks.js';
import { slackErrorText } from './errors.js';
import {
  INCIDENT_FIELD_BLOCKS,
  RESOLVE_FIELD_BLOCKS,
  VIEW_NEW_INCIDENT,
  VIEW_RESOLVE_INCIDENT,
  VIEW_UPDATE_INCIDENT,
  newIncidentView,
  readMeta,
  resolveIncidentView,
  submittedValues,
  updateIncidentView,
} from './incident-views.js';
import type { ModalMeta } from './incident-views.js';

export interface ModalDeps {
  ctx: DomainContext;
  logger: Logger;
}

type Client = webApi.WebClient;

/** Opens the form of `/incident new`; a message instead when the company has no service to open one on. */
export async function openNewIncidentModal(
  deps: ModalDeps,
  client: Client,
  company: Company,
  opener: { triggerId: string; responseUrl: string | null },
): Promise<SlackMessage | null> {
  const services = await listCustomServices(deps.ctx, company);
  if (services.length === 0) {
    return { text: 'Your company has no custom services to open an incident on; declare them under `custom_services` in the config.' };
  }
  await client.views.open({ trigger_id: opener.triggerId, view: newIncidentView(services, opener.responseUrl) });
  return null;
}

/** Opens a modal about one incident of the company, built by `view` from its current state. */
const incidentModal =
  (view: typeof updateIncidentView | typeof resolveIncidentView) =>
  async (
    deps: ModalDeps,
    client: Client,
    company: Company,
    id: number,
    opener: { triggerId: string; responseUrl: string | null },
  ): Promise<null> => {
    const incident = await getIncident(deps.ctx, company, id);
    await client.views.open({ trigger_id: opener.triggerId, view: view(incident, opener.responseUrl) });
    return null;
  };

export const openUpdateIncidentModal = incidentModal(updateIncidentView);
const openResolveIncidentModal = incidentModal(resolveIncidentView);

/** Inline errors: each field issue of the domain under the input it came from, anything else under `fallback`. */
export function modalErrors(
  error: unknown,
  fields: Readonly<Record<string, string>>,
  fallback: string,
  logger: Logger,
): Record<string, string> {
  const errors: Record<string, string> = {};
  const add = (block: string, message: string) => {
    errors[block] = errors[block] ? `${errors[block]}; ${message}` : message;
  };
  if (error instanceof DomainError && error.code === 'invalid_input' && error.issues.length > 0) {
    for (const issue of error.issues) add(fields[String(issue.path[0])] ?? fallback, issue.message);
  } else {
    add(fallback, slackErrorText(error, logger, 'a form submission'));
  }
  return errors;
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

type Values = Record<string, string | undefined>;
type Submit = (company: Company, values: Values, meta: ModalMeta) => Promise<SlackMessage>;

/**
 * A form's submission runs before the ack: only the ack can keep the form
 * open with errors under its fields. The domain call is local and fast.
 */
function onSubmit(
  deps: ModalDeps,
  fields: Readonly<Record<string, string>>,
  fallback: string,
  run: Submit,
): Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>> {
  return async ({ ack, body, view }) => {
    const meta = readMeta(view.private_metadata);
    let done: SlackMessage;
    try {
      const company = await companyForWorkspace(deps.ctx, 'slack', body.team?.id ?? body.user.team_id ?? '');
      if (!company) {
        await ack({ response_action: 'errors', errors: { [fallback]: NOT_LINKED } });
        return;
      }
      done = await run(company, submittedValues(view), meta);
    } catch (error) {
      await ack({ response_action: 'errors', errors: modalErrors(error, fields, fallback, deps.logger) });
      return;
    }
    await ack();
    await confirm(meta.responseUrl, done, deps.logger);
  };
}

const defined = (input: Record<string, unknown>) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));

function incidentIdOf(meta: ModalMeta): number {
  if (meta.incidentId === null) throw new DomainError('not_found', 'The incident of this form is unknown');
  return meta.incidentId;
}

export function registerModals(app: App, deps: ModalDeps): void {
  const { ctx } = deps;

  app.view<ViewSubmitAction>(
    VIEW_NEW_INCIDENT,
    onSubmit(deps, INCIDENT_FIELD_BLOCKS, 'title', async (company, v) => {
      const incident = await createIncident(
        ctx,
        company,
        defined({
          service_id: v.service === undefined ? undefined : Number(v.service),
          title: v.title ?? '',
          status: v.severity,
          resolution_stage: v.stage,
          description: v.description,
        }),
      );
      return { text: `Opened incident *#${incident.id}* on ${esc(incident.serviceName)}: ${esc(incident.title)}` };
    }),
  );

  app.view<ViewSubmitAction>(
    VIEW_UPDATE_INCIDENT,
    onSubmit(deps, INCIDENT_FIELD_BLOCKS, 'title', async (company, v, meta) => {
      const message = v.description?.trim() ?? '';
      // A new update only when there is something to say: a message, or a new stage.
      const update = message !== '' || (v.stage !== undefined && v.stage !== meta.stage);
      const incident = await updateIncident(
        ctx,
        company,
        incidentIdOf(meta),
        defined({
          title: v.title ?? '',
          status: v.severity,
          ...(update ? { description: message, resolution_stage: v.stage ?? meta.stage ?? undefined } : {}),
        }),
      );
      return { text: `Updated incident *#${incident.id}*: ${esc(incident.title)}` };
    }),
  );

  app.view<ViewSubmitAction>(
    VIEW_RESOLVE_INCIDENT,
    onSubmit(deps, RESOLVE_FIELD_BLOCKS, 'message', async (company, v, meta) => {
      const incident = await resolveIncident(ctx, company, incidentIdOf(meta), v.message);
      return { text: `Resolved incident *#${incident.id}*: ${esc(incident.title)}` };
    }),
  );

  /** A button of an incident's message: ack, then open its form with the trigger_id. */
  const button =
    (open: typeof openResolveIncidentModal): Middleware<SlackActionMiddlewareArgs<BlockButtonAction>> =>
    async ({ ack, body, action, client, respond }) => {
      await ack();
      const answer = async (text: string) => {
        await respond({ response_type: 'ephemeral', replace_original: false, text });
      };
      try {
        const company = await companyForWorkspace(ctx, 'slack', body.team?.id ?? body.user.team_id ?? '');
        if (!company) return answer(NOT_LINKED);
        const id = Number(action.value);
        if (!Number.isSafeInteger(id)) return answer('This button names no incident.');
        await open(deps, client, company, id, { triggerId: body.trigger_id, responseUrl: body.response_url });
      } catch (error) {
        await answer(slackErrorText(error, deps.logger, `the ${action.action_id} button`));
      }
    };

  app.action<BlockButtonAction>({ type: 'block_actions', action_id: ACTION_POST_UPDATE }, button(openUpdateIncidentModal));
  app.action<BlockButtonAction>({ type: 'block_actions', action_id: ACTION_RESOLVE }, button(openResolveIncidentModal));
}
