import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPModuleFunctions, HTTPResponseAck } from '@slack/bolt';
import type { App, Logger as BoltLogger, Receiver, ReceiverEvent } from '@slack/bolt';
import type { RawHandler } from '../../src/core/raw-handler.js';

type BufferedIncomingMessage = IncomingMessage & { rawBody: Buffer };

const FIVE_MINUTES_MS = 5 * 60_000;

/**
 * Bolt's HTTP transport on statusbot's own listener: HTTPReceiver would open
 * a second port, so this one only turns a request that server.ts already read
 * into a Bolt event. Verification (signature, 5-minute window), ssl_check and
 * url_verification follow HTTPReceiver exactly.
 */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private readonly signingSecret: string;
  private readonly logger: BoltLogger;

  constructor(options: { signingSecret: string; logger: BoltLogger }) {
    this.signingSecret = options.signingSecret;
    this.logger = options.logger;
  }

  init(app: App): void {
    this.app = app;
  }

  // The listener belongs to statusbot; there is nothing to open or close.
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  readonly handler: RawHandler = async (req, res, body) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' });
      res.end();
      return;
    }
    const buffered = req as BufferedIncomingMessage;
    buffered.rawBody = body;
    // Bolt refuses timestamps more than 5 minutes old; one from the future is as much a replay risk.
    const sentAt = Number(req.headers['x-slack-request-timestamp']) * 1000;
    if (sentAt - Date.now() > FIVE_MINUTES_MS) {
      this.logger.warn(`slack: refused a request to ${req.url}: its timestamp lies in the future`);
      HTTPModuleFunctions.buildNoBodyResponse(res, 401);
      return;
    }
    try {
      await HTTPModuleFunctions.parseAndVerifyHTTPRequest({ signingSecret: this.signingSecret, logger: this.logger }, buffered);
    } catch (error) {
      this.logger.warn(`slack: refused a request to ${req.url}: ${(error as Error).message}`);
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
