import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPModuleFunctions, HTTPResponseAck } from '@slack/bolt';
import type { App, Logger as BoltLogger, Receiver, ReceiverEvent } from '@slack/bolt';
import type { RawHandler } from '../../src/infrastructure/raw-handler.js';
import type { ClientAddress } from '../../src/infrastructure/client-address.js';
import type { ChatLimiter } from '../chat/chat-limits.js';
import type { ReplayGuard } from '../chat/replay-guard.js';
import { slowDown } from '../chat/wording.js';

type BufferedIncomingMessage = IncomingMessage & { rawBody: Buffer };

export interface SlackHttpReceiverOptions {
  signingSecret: string;
  logger: BoltLogger;
  clientAddress: ClientAddress;
  limits: ChatLimiter;
  replays: ReplayGuard;
}

/** The workspace a payload comes from: a command's team_id, an interaction's team (an org-wide app's enterprise). */
function workspaceOf(payload: Record<string, unknown>): string {
  const team = payload.team as { id?: unknown } | null | undefined;
  const user = payload.user as { team_id?: unknown } | null | undefined;
  const enterprise = payload.enterprise as { id?: unknown } | null | undefined;
  for (const id of [payload.team_id, team?.id, user?.team_id, payload.enterprise_id, enterprise?.id]) {
    if (typeof id === 'string' && id !== '') return id;
  }
  return 'unknown';
}

/**
 * The answer to a limited request, as Slack shows it: an ephemeral line for a
 * command (any other status would show as an error); a form stays open with
 * the line under its first field. Slack shows nothing for a click.
 */
function slowDownAnswer(payload: Record<string, unknown> | null, seconds: number): Record<string, unknown> {
  const text = slowDown(seconds);
  if (payload?.type === 'view_submission') {
    const view = payload.view as { state?: { values?: Record<string, unknown> } } | null | undefined;
    const field = Object.keys(view?.state?.values ?? {})[0];
    if (field) return { response_action: 'errors', errors: { [field]: text } };
  }
  return { response_type: 'ephemeral', text };
}

const FIVE_MINUTES_MS = 5 * 60_000;

/**
 * Bolt's HTTP transport on statusbot's own listener: HTTPReceiver would open
 * a second port, so this one only turns a request that server.ts already read
 * into a Bolt event. Verification (signature, 5-minute window), ssl_check and
 * url_verification follow HTTPReceiver exactly. Beyond it: rate limits per
 * address (before verifying) and per workspace (after), and replays refused.
 */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private readonly signingSecret: string;
  private readonly logger: BoltLogger;
  private readonly options: SlackHttpReceiverOptions;

  constructor(options: SlackHttpReceiverOptions) {
    this.signingSecret = options.signingSecret;
    this.logger = options.logger;
    this.options = options;
  }

  init(app: App): void {
    this.app = app;
  }

  // The listener belongs to statusbot; there is nothing to open or close.
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  readonly handler: RawHandler = async (req, res, body) => {
    const buffered = req as BufferedIncomingMessage;
    buffered.rawBody = body;
    const address = this.options.clientAddress(req);
    const addressWait = this.options.limits.address(address);
    if (addressWait > 0) {
      // Not verified: the body only shapes the answer.
      let unverified: Record<string, unknown> | null = null;
      try {
        unverified = HTTPModuleFunctions.parseHTTPRequestBody(buffered) as Record<string, unknown>;
      } catch {
        unverified = null;
      }
      HTTPModuleFunctions.buildContentResponse(res, slowDownAnswer(unverified, addressWait));
      return;
    }
    // Bolt refuses timestamps more than 5 minutes old; one from the future is as much a replay risk.
    const sentAt = Number(req.headers['x-slack-request-timestamp']) * 1000;
    if (sentAt - Date.now() > FIVE_MINUTES_MS) {
      this.logger.warn(`refused a request to ${req.url}: its timestamp lies in the future`);
      HTTPModuleFunctions.buildNoBodyResponse(res, 401);
      return;
    }
    try {
      await HTTPModuleFunctions.parseAndVerifyHTTPRequest({ signingSecret: this.signingSecret, logger: this.logger }, buffered);
    } catch (error) {
      this.logger.warn(`refused a request to ${req.url}: ${(error as Error).message}`);
      HTTPModuleFunctions.buildNoBodyResponse(res, 401);
      return;
    }
    let payload: Record<string, unknown>;
    try {
      payload = HTTPModuleFunctions.parseHTTPRequestBody(buffered) as Record<string, unknown>;
    } catch {
      HTTPModuleFunctions.buildNoBodyResponse(res, 400);
      return;
    }
    if (payload.ssl_check === '1') {
      HTTPModuleFunctions.buildSSLCheckResponse(res);
      return;
    }
    if (payload.type === 'url_verification') {
      HTTPModuleFunctions.buildUrlVerificationResponse(res, payload);
      return;
    }
    const workspace = workspaceOf(payload);
    const workspaceWait = this.options.limits.workspace(workspace);
    if (workspaceWait > 0) {
      HTTPModuleFunctions.buildContentResponse(res, slowDownAnswer(payload, workspaceWait));
      return;
    }
    // Exactly what Bolt's check signed (it reads the timestamp as a number), so another spelling is the same request.
    const timestamp = Number(req.headers['x-slack-request-timestamp']);
    const signed = `v0:${timestamp}:${buffered.rawBody.toString()}`;
    if (!(await this.options.replays.firstSight({ signed: [signed], timestamp, about: { path: req.url, address, workspace } }))) {
      // Slack's own retries are signed anew, with the time of sending; 200 with no body stops any retry and tells a replayer nothing.
      HTTPModuleFunctions.buildNoBodyResponse(res, 200);
      return;
    }
    await this.dispatch(buffered, res, payload);
  };

  private async dispatch(req: BufferedIncomingMessage, res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    const ack = new HTTPResponseAck({
      logger: this.logger,
      processBeforeResponse: false,
      httpRequest: req,
      httpRequestBody: body,
      httpResponse: res,
    });
    const event: ReceiverEvent = {
      body,
      ack: ack.bind(),
      retryNum: HTTPModuleFunctions.extractRetryNumFromHTTPRequest(req),
      retryReason: HTTPModuleFunctions.extractRetryReasonFromHTTPRequest(req),
    };
    try {
      await this.app?.processEvent(event);
    } catch (error) {
      const acknowledged = await HTTPModuleFunctions.defaultProcessEventErrorHandler({
        error: error as Error,
        logger: this.logger,
        request: req,
        response: res,
        storedResponse: ack.storedResponse,
      });
      if (acknowledged) ack.ack();
    }
  }
}
