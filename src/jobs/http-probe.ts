import type { Dispatcher } from 'undici';
import { createOutboundDispatcher, describeNetworkError, pathOf, requestSignal, throwIfStopping } from '../infrastructure/outbound.js';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export { MAX_REDIRECTS } from '../infrastructure/outbound.js';

export interface ProbeSettings {
  timeoutMs: number;
  blockPrivateTargets: boolean;
  userAgent: string;
  /** Fired when the process stops: a probe under way ends with StoppingError, recorded nowhere. */
  stop?: AbortSignal;
}

export interface ProbeTarget {
  url: string;
  probeType: 'ping' | 'keyword';
  keyword: string | null;
}

export interface ProbeClient {
  probe(target: ProbeTarget): Promise<ProbeOutcome>;
  close(): Promise<void>;
}

/**
 * HTTP probes over one shared connection pool: GET, redirects followed up to 5,
 * 2xx is up, and a 3xx that sends nowhere else (304, a 300 without Location); a
 * sixth redirect, a loop or a redirect without Location is down. A keyword probe
 * also needs the keyword in the first MiB of the body.
 */
export function createProbeClient(settings: ProbeSettings): ProbeClient {
  const { dispatcher, close } = createOutboundDispatcher({ ...settings, followRedirects: true });
  const { stop } = settings;

  async function probe(target: ProbeTarget): Promise<ProbeOutcome> {
    throwIfStopping(stop);
    const signal = requestSignal(settings.timeoutMs, stop);
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({
        origin: new URL(target.url).origin,
        path: pathOf(target.url),
        method: 'GET',
        headers: { 'user-agent': settings.userAgent, accept: '*/*' },
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
    if (target.probeType === 'ping') {
      await response.body.dump().catch(() => undefined);
      return { ok: true };
    }
    const keyword = Buffer.from(target.keyword ?? '');
    try {
      if (await bodyContains(response.body, keyword)) return { ok: true };
    } catch (error) {
      throwIfStopping(stop);
      return { ok: false, reason: describeNetworkError(error, settings.timeoutMs, signal) };
    }
    return { ok: false, reason: `keyword "${target.keyword ?? ''}" not found (HTTP ${status})` };
  }

  return { probe, close };
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
