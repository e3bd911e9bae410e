import { linkWorkspace } from '../../src/domain/chat/chat-links.js';
import { listChannelSubscriptions, subscribeChannel, unsubscribeChannel } from '../../src/domain/chat/subscriptions.js';
import type { Company } from '../../src/domain/model/company.js';
import { DomainError, forbidden } from '../../src/domain/errors.js';
import { listServiceIncidents } from '../../src/domain/incidents/incident-service.js';
import { getServiceStatus, searchServices } from '../../src/domain/services/service-queries.js';
import { reportProblem } from '../../src/domain/vendors/user-reports.js';
import type { ChatRight } from './dialect.js';
import type { ChatReply } from './reply.js';
import { textReply } from './reply.js';
import type { ChatRequest } from './chat-request.js';
import { didYouMean, linked, noRight, reported, subscribed, subscriptionList, unsubscribed } from './wording.js';

/** The permission rule, the same on both platforms: the platform says who holds which right. */
async function requireRight(req: ChatRequest, right: ChatRight, company: Company): Promise<void> {
  if (!(await req.actor.has(right, company))) throw forbidden(noRight(req.dialect, right));
}

export async function link(req: ChatRequest, key: string): Promise<ChatReply> {
  const company = await linkWorkspace(req.ctx, req.dialect.platform, req.workspaceId, key, (c) => requireRight(req, 'link_workspace', c));
  return textReply(linked(req.dialect, company.name));
}

const SUGGESTIONS = 5;

/** A service typed by its name rather than its urlname still finds its urlname. */
async function urlnameOf(req: ChatRequest, company: Company, ref: string): Promise<string> {
  const wanted = ref.trim();
  const found = (await searchServices(req.ctx, company, wanted, 25)).find((s) => s.urlname === wanted || s.name.toLowerCase() === wanted.toLowerCase());
  return found?.urlname ?? wanted;
}

/** The subscription input with a service named by name resolved to its urlname; the domain validates the rest. */
async function targetOf(req: ChatRequest, company: Company, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  return typeof input.service === 'string' ? { ...input, service: await urlnameOf(req, company, input.service) } : input;
}

export async function subscribe(req: ChatRequest, company: Company, input: Record<string, unknown>): Promise<ChatReply> {
  await requireRight(req, 'manage_channel', company);
  const subscription = await subscribeChannel(req.ctx, company, req.channel, await targetOf(req, company, input));
  return textReply(subscribed(req.dialect, subscription));
}

export async function unsubscribe(req: ChatRequest, company: Company, input: Record<string, unknown>): Promise<ChatReply> {
  await requireRight(req, 'manage_channel', company);
  const target = await targetOf(req, company, input);
  await unsubscribeChannel(req.ctx, company, req.channel, target);
  const name = target.service ?? target.monitor ?? target.board;
  return textReply(unsubscribed(req.dialect, [target.target, name].filter((x) => x !== undefined).join(' ')));
}

export async function subscriptions(req: ChatRequest, company: Company): Promise<ChatReply> {
  return textReply(subscriptionList(req.dialect, await listChannelSubscriptions(req.ctx, company, req.channel)));
}

/** What `answer` replies for the service named `ref`; similar services when no service has that name. */
async function withService(req: ChatRequest, company: Company, ref: string, answer: (urlname: string) => Promise<ChatReply>): Promise<ChatReply> {
  try {
    return await answer(await urlnameOf(req, company, ref));
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
    const similar = await searchServices(req.ctx, company, ref, SUGGESTIONS);
    if (similar.length === 0) throw error;
    return textReply(didYouMean(req.dialect, ref.trim(), similar));
  }
}

/** A service's status and open incidents; similar services when the name is unknown. */
export async function serviceStatus(req: ChatRequest, company: Company, ref: string): Promise<ChatReply> {
  const { ctx } = req;
  return withService(req, company, ref, async (urlname) => {
    const service = await getServiceStatus(ctx, company, urlname);
    let open = null;
    try {
      open = (await listServiceIncidents(ctx, company, service.urlname, { includeUserReports: false })).filter((i) => !i.resolved);
    } catch (error) {
      // The plan does not show this service's incidents; its status is still shown.
      if (!(error instanceof DomainError && error.code === 'forbidden')) throw error;
    }
    return { kind: 'service', service, open };
  });
}

/** A report of a problem with a service by whoever asks, under the API's rules (visibility, plan). */
export async function report(req: ChatRequest, company: Company, ref: string): Promise<ChatReply> {
  return withService(req, company, ref, async (urlname) => {
    const done = await reportProblem(req.ctx, company, urlname, req.reporter, {});
    return textReply(reported(req.dialect, done.service.name, done.reporters, done.minutes));
  });
}
