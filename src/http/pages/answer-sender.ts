import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DomainContext } from '../../domain/context.js';
import { readEpoch } from '../../domain/read-epoch.js';
import { clientHolds } from '../conditional-request.js';
import { negotiateCoding } from '../content-coding.js';
import { endAnswer } from '../read-body.js';
import type { RequestTrace } from '../request-trace.js';
import { createResponseCache } from '../response-cache.js';
import type { ResponseCache } from '../response-cache.js';
import { errorReply } from './replies.js';
import { codedVariant, prepareAnswer } from './rendered-answer.js';
import type { Rendered, Variant } from './rendered-answer.js';

/** Requests remembered with the answer they were sent (see Repeat). */
const REPEATS_MAX = 2_000;

/**
 * A cacheable answer as it was sent for one request: the same request (method,
 * host, target, Accept-Encoding, no validators) while the read epoch holds is
 * sent the same bytes without routing, negotiating or looking up again.
 */
interface Repeat {
  /** The route's path, as logs and metrics name it. */
  route: string;
  status: number;
  variant: Variant;
}

/** Sends prepared answers in the coding each client takes, and remembers them for repeats. */
export interface AnswerSender {
  ctx: DomainContext;
  /** Kept under the read epoch they were sent in, as rendered answers are. */
  repeats: ResponseCache<Repeat>;
}

export const createAnswerSender = (ctx: DomainContext): AnswerSender => ({ ctx, repeats: createResponseCache<Repeat>(REPEATS_MAX) });

/** What a repeat is remembered under; null for a request that is never answered as a repeat. */
function repeatKey(req: IncomingMessage): string | null {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return null;
  const headers = req.headers;
  // Whether the client holds the answer is asked each time.
  if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return null;
  return `${method} ${headers.host ?? ''} ${headers['accept-encoding'] ?? ''} ${req.url}`;
}

/**
 * Sends `entry` in the coding the client takes best; waits only while that coding is being made. `repeat`: a
 * cached answer, remembered as sent for this very request under its epoch (see Repeat).
 */
export function sendAnswer(
  sender: AnswerSender,
  req: IncomingMessage,
  res: ServerResponse,
  entry: Rendered,
  repeat?: { epoch: string; route: string },
): void | Promise<void> {
  // Only answers with validators come in several codings; the others are small and said once.
  const coding = entry.opaqueTags.size === 0 ? 'identity' : negotiateCoding(req.headers['accept-encoding']);
  if (coding === null) {
    const refused = errorReply(406, 'Not acceptable', 'The Accept-Encoding header refuses every coding this is served in: identity, gzip, br.');
    return sendAnswer(sender, req, res, prepareAnswer(refused, false));
  }
  const chosen = coding === 'identity' ? entry.identity : codedVariant(entry, coding);
  if (chosen instanceof Promise) return chosen.then((made) => sendVariant(sender, req, res, entry, made, repeat));
  sendVariant(sender, req, res, entry, chosen, repeat);
}

function sendVariant(
  sender: AnswerSender,
  req: IncomingMessage,
  res: ServerResponse,
  entry: Rendered,
  chosen: Variant,
  repeat?: { epoch: string; route: string },
): void {
  if (entry.opaqueTags.size > 0 && clientHolds(req.headers, entry)) {
    res.writeHead(304, chosen.unchanged);
    res.end();
    return;
  }
  res.writeHead(entry.status, chosen.headers);
  endAnswer(res, chosen.body);
  if (repeat === undefined) return;
  const key = repeatKey(req);
  // Not when rendered or compressed while something changed: it is stale already.
  if (key !== null && repeat.epoch === readEpoch(sender.ctx))
    sender.repeats.set(key, repeat.epoch, { route: repeat.route, status: entry.status, variant: chosen });
}

/**
 * Answers a request the same as the last time it was asked, when nothing
 * has changed since (the read epoch holds): the very bytes and headers, with
 * none of the routing. False when it was not asked so or something changed:
 * the request then takes the whole way.
 */
export function answerRepeat(sender: AnswerSender, req: IncomingMessage, res: ServerResponse, trace: RequestTrace): boolean {
  const key = repeatKey(req);
  const known = key === null ? undefined : sender.repeats.get(key, readEpoch(sender.ctx));
  if (known === undefined) return false;
  trace.route = known.route;
  res.writeHead(known.status, known.variant.headers);
  res.end(known.variant.body);
  return true;
}
