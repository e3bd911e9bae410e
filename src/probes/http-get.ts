import type { Dispatcher } from 'undici';
import { describeNetworkError, pathOf, requestScope, throwIfStopping } from '../infrastructure/outbound.js';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import type { ProbeTools } from './probe-kind.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export { MAX_REDIRECTS } from '../infrastructure/outbound.js';

/**
 * The GET of HTTP probes (ping and keyword), on the probe client's shared pool:
 * redirects followed up to 5, 2xx is up, and a 3xx that sends nowhere else (304,
 * a 300 without Location); a sixth redirect, a loop or a redirect without
 * Location is down. With a keyword, the keyword must also be in the first MiB
 * of the body.
 */
export async function httpGet(url: string, keyword: string | null, tools: ProbeTools): Promise<ProbeOutcome> {
  const { stop, timeoutMs } = tools.settings;
  throwIfStopping(stop);
  const { signal, release } = requestScope(timeoutMs, stop);
  try {
    return await httpGetWithin(url, keyword, tools, signal);
  } finally {
    release();
  }
}

async function httpGetWithin(url: string, keyword: string | null, { settings, dispatcher }: ProbeTools, signal: AbortSignal): Promise<ProbeOutcome> {
  const { stop } = settings;
  let response: Dispatcher.ResponseData;
  try {
    response = await dispatcher.request({
      origin: new URL(url).origin,
      path: pathOf(url),
      method: 'GET',
      headers: { ...settings.headers, 'user-agent': settings.userAgent, accept: '*/*' },
      signal,
    });
  } catch (error) {
    throwIfStopping(stop);
    return { ok: false, reason: describeNetworkError(error, settings.timeoutMs, signal) };
  }
  const status = response.statusCode;
  if (status < 200 || status >= 400) {
    await response.body.dump().catch(() => undefined);
    return { ok: false, reason: `HTTP ${status}` };
  }
  if (keyword === null) {
    await response.body.dump().catch(() => undefined);
    return { ok: true };
  }
  try {
    if (await bodyContains(response.body, Buffer.from(keyword))) return { ok: true };
  } catch (error) {
    throwIfStopping(stop);
    return { ok: false, reason: describeNetworkError(error, settings.timeoutMs, signal) };
  }
  return { ok: false, reason: `keyword "${keyword}" not found (HTTP ${status})` };
}

/** Reads at most MAX_BODY_BYTES, stopping as soon as the keyword is seen. */
async function bodyContains(body: Dispatcher.ResponseData['body'], keyword: Buffer): Promise<boolean> {
  let seen = Buffer.alloc(0);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = MAX_BODY_BYTES - seen.length;
      seen = Buffer.concat([seen, room < chunk.length ? chunk.subarray(0, room) : chunk]);
      if (seen.includes(keyword)) return true;
      if (seen.length >= MAX_BODY_BYTES) return false;
    }
    return false;
  } finally {
    body.destroy();
  }
}
