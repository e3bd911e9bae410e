import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import type { Company } from '../../src/domain/model/company.js';
import { DomainError } from '../../src/domain/errors.js';
import { link, report, serviceStatus, subscribe, subscriptions, unsubscribe } from './channel-verbs.js';
import type { ChatRequest } from './chat-request.js';
import type { Syntax } from './dialect.js';
import { listIncidents, openForm, resolve, showIncident, submitForm } from './incident-verbs.js';
import { formErrors } from './forms.js';
import { maintenanceList } from './maintenance-verbs.js';
import { lead, note, postmortem, room } from './room-verbs.js';
import type { ChatReply, FormKind, FormRef, FormValues } from './reply.js';
import { textReply } from './reply.js';
import { errorText, help, notLinked, unknownCommand, usage } from './wording.js';

/** A verb with its arguments, as each platform reads them from its own payload. */
export type VerbCall =
  | { verb: 'help' }
  | { verb: 'usage'; syntax: Syntax }
  | { verb: 'unknown'; typed: string }
  | { verb: 'link'; key: string }
  | { verb: 'subscribe'; input: Record<string, unknown> }
  | { verb: 'unsubscribe'; input: Record<string, unknown> }
  | { verb: 'subscriptions' }
  | { verb: 'maintenance' }
  | { verb: 'status'; service: string }
  | { verb: 'report'; service: string }
  | { verb: 'list' }
  | { verb: 'show'; id: number }
  | { verb: 'resolve'; id: number; message: string | undefined }
  /** `id` null: the incident whose room the channel is. `member`: the platform's user id ('' when none was named). */
  | { verb: 'lead'; id: number | null; member: string }
  | { verb: 'room'; id: number | null }
  | { verb: 'note'; text: string }
  | { verb: 'postmortem'; id: number | null }
  /** `target` is a service reference for a new incident, an incident id otherwise. */
  | { verb: 'form'; form: FormKind; target: string | number | null; lead?: string }
  | { verb: 'submit'; ref: FormRef; values: FormValues };

/** Verbs that need no linked workspace. */
const UNLINKED_VERBS = new Set<VerbCall['verb']>(['help', 'usage', 'unknown', 'link']);

async function dispatch(req: ChatRequest, call: VerbCall, company: Company | null): Promise<ChatReply> {
  const d = req.dialect;
  if (call.verb === 'help') return textReply(help(d));
  if (call.verb === 'usage') return textReply(usage(d, call.syntax));
  if (call.verb === 'unknown') return textReply(unknownCommand(d, call.typed));
  if (call.verb === 'link') return link(req, call.key);
  if (!company) return textReply(notLinked(d));
  switch (call.verb) {
    case 'subscribe':
      return subscribe(req, company, call.input);
    case 'unsubscribe':
      return unsubscribe(req, company, call.input);
    case 'subscriptions':
      return subscriptions(req, company);
    case 'maintenance':
      return maintenanceList(req, company);
    case 'status':
      return serviceStatus(req, company, call.service);
    case 'report':
      return report(req, company, call.service);
    case 'list':
      return listIncidents(req, company);
    case 'show':
      return showIncident(req, company, call.id);
    case 'resolve':
      return resolve(req, company, call.id, call.message);
    case 'lead':
      return lead(req, company, call.id, call.member);
    case 'room':
      return room(req, company, call.id);
    case 'note':
      return note(req, call.text);
    case 'postmortem':
      return postmortem(req, company, call.id);
    case 'form':
      return openForm(req, company, call.form, call.target, call.lead);
    case 'submit':
      return submitForm(req, company, call.ref, call.values);
  }
}

/**
 * Runs one verb for a chat member: looks up the company the workspace acts
 * for, calls the domain, and turns every failure into the one error reply.
 * `doing` names the verb in logs; never its arguments (a link carries a key).
 */
export async function runVerb(req: ChatRequest, call: VerbCall, doing: string): Promise<ChatReply> {
  try {
    const company = UNLINKED_VERBS.has(call.verb) ? null : await companyForWorkspace(req.ctx, req.dialect.platform, req.workspaceId);
    if (!company && call.verb === 'submit') return { kind: 'error', text: notLinked(req.dialect), fields: {} };
    return await dispatch(req, call, company);
  } catch (error) {
    const text = errorText(req.dialect, error, req.logger, doing);
    const fields = call.verb === 'submit' && error instanceof DomainError ? formErrors(req.dialect, error, call.ref.kind) : {};
    return { kind: 'error', text, fields };
  }
}
