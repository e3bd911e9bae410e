import { isIP } from 'node:net';
import { Agent, buildConnector, interceptors } from 'undici';
import type { Dispatcher } from 'undici';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from './target-guard.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_REDIRECTS = 5;

export interface ProbeSettings {
  timeoutMs: number;
  blockPrivateTargets: boolean;
  userAgent: string;
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
 * 2xx/3xx is up; a keyword probe also needs the keyword in the first MiB of the body.
 */
export function createProbeClient(settings: ProbeSettings): ProbeClient {
  const connect = buildConnector({ timeout: settings.timeoutMs, ...(settings.blockPrivateTargets ? { lookup: guardedLookup } : {}) });
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
    // Every connection passes here, redirects included: literal IPs skip DNS, so they are checked before connecting.
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (settings.blockPrivateTargets && isIP(host) !== 0 && isBlockedAddress(host)) {
        callback(new BlockedTargetError(host), null);
        return;
      }
      connect(options, callback);
    },
  });
  const dispatcher: Dispatcher = agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS }));

  async function probe(target: ProbeTarget): Promise<ProbeOutcome> {
    const signal = AbortSignal.timeout(settings.timeoutMs);
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
      return { ok: false, reason: describeError(error, settings.timeoutMs, signal) };
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
      return { ok: false, reason: describeError(error, settings.timeoutMs, signal) };
    }
    return { ok: false, reason: `keyword "${target.keyword ?? ''}" not found (HTTP ${status})` };
  }

  return { probe, close: () => agent.close() };
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

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

function describeError(error: unknown, timeoutMs: number, signal: AbortSignal): string {
  if (signal.aborted) return `timeout after ${timeoutMs / 1000} s`;
  let e = error as { code?: string; message?: string; cause?: unknown } | undefined;
  // undici wraps the connector's error; the cause says what happened.
  while (e?.cause && typeof e.cause === 'object' && !(e instanceof BlockedTargetError)) e = e.cause as typeof e;
  if (e instanceof BlockedTargetError) return e.message;
  const code = e?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timeout after ${timeoutMs / 1000} s`;
  }
  if (code === 'UND_ERR_REDIRECTION_LIMIT' || /redirect/i.test(e?.message ?? '')) return `more than ${MAX_REDIRECTS} redirects`;
  return code ? `${code}${e?.message && !e.message.includes(code) ? ` (${e.message})` : ''}` : (e?.message ?? 'network error');
}
