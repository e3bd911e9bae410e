import { webApi } from '@slack/bolt';
import { describeNetworkError, isNetworkError } from '../../src/infrastructure/outbound.js';

/** WebClient wants the base with its trailing slash. */
export const apiBase = (url: string | null): string | undefined => (url ? (url.endsWith('/') ? url : `${url}/`) : undefined);

/** A WebClient for deliveries: it never waits or retries by itself, so that the outbox worker schedules every retry. */
export function createDeliveryClient(options: {
  botToken: string;
  slackApiUrl?: string | undefined;
  logger: webApi.WebClientOptions['logger'];
  fetch?: webApi.FetchFunction;
}) {
  return new webApi.WebClient(options.botToken, {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 10_000,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/** Why a call to Slack's Web API failed, in one line; null for what nobody foresaw (a bug keeps its stack). */
export function describeSlackFailure(error: unknown): string | null {
  const e = error as { code?: unknown; data?: { error?: unknown }; statusCode?: unknown; original?: unknown } | null;
  if (isNetworkError(error) || isNetworkError(e?.original)) return `cannot reach Slack (${describeNetworkError(e?.original ?? error, 10_000)})`;
  switch (e?.code) {
    case webApi.ErrorCode.PlatformError:
      return `Slack answered ${String(e.data?.error ?? 'an error')}`;
    case webApi.ErrorCode.HTTPError:
      return `Slack answered HTTP ${String(e.statusCode)}`;
    case webApi.ErrorCode.RequestError:
      return `cannot reach Slack (${e.original instanceof Error ? e.original.message : 'request failed'})`;
    case webApi.ErrorCode.RateLimitedError:
      return 'Slack asked to slow down';
    default:
      return null;
  }
}
