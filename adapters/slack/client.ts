import { webApi } from '@slack/bolt';

/** WebClient wants the base with its trailing slash. */
export const apiBase = (url: string | null): string | undefined => (url ? (url.endsWith('/') ? url : `${url}/`) : undefined);

/** A WebClient for deliveries: it never waits or retries by itself, so that the outbox worker schedules every retry. */
export function createDeliveryClient(options: { botToken: string; slackApiUrl?: string | undefined; logger: webApi.WebClientOptions['logger'] }) {
  return new webApi.WebClient(options.botToken, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 10_000,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
