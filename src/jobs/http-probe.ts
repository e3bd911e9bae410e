import type { Dispatcher } from 'undici';
import { createOutboundDispatcher, describeNetworkError, pathOf, requestScope, throwIfStopping } from '../infrastructure/outbound.js';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { DEFAULT_DAYS_BEFORE_EXPIRY } from '../domain/monitors/monitor.js';
import type { DnsRecord, ProbeType } from '../domain/monitors/monitor.js';
import { probeDns } from './dns-probe.js';
import { probeTcp } from './tcp-probe.js';
import { probeTls } from './tls-probe.js';
import type { ProbeSettings } from './probe-settings.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export { MAX_REDIRECTS } from '../infrastructure/outbound.js';

export type { ProbeSettings };

export interface ProbeTarget {
  url: string;
  probeType: Exclude<ProbeType, 'heartbeat'>;
  keyword: string | null;
  /** dns */
  record?: DnsRecord | null;
  expect?: readonly string[] | null;
  dnsServer?: string | null;
  /** tls */
  daysBeforeExpiry?: number | null;
}

export interface ProbeClient {
  probe(target: ProbeTarget): Promise<ProbeOutcome>;
  close(): Promise<void>;
}

/**
 * Probes of every kind but heartbeats (which are pushed, not probed), each
 * answering up or down with the reason. tcp, dns and tls probes are in their
 * own files; HTTP probes run over one shared connection pool: GET, redirects followed up to 5,
 * 2xx is up, and a 3xx that sends nowhere else (304, a 300 without Location); a
 * sixth redirect, a loop or a redirect without Location is down. A keyword probe
 * also needs the keyword in the first MiB of the body.
 */
export function createProbeClient(settings: ProbeSettings): ProbeClient {
  const { dispatcher, close } = createOutboundDispatcher({ ...settings, followRedirects: true });
  const { stop } = settings;

  async function probe(target: ProbeTarget): Promise<ProbeOutcome> {
    switch (target.probeType) {
      case 'tcp':
        return probeTcp(target.url, settings);
      case 'tls':
        return probeTls(target.url, target.daysBeforeExpiry ?? DEFAULT_DAYS_BEFORE_EXPIRY, settings);
      case 'dns':
        return probeDns({ url: target.url, record: target.record ?? 'A', expect: target.expect ?? null, server: target.dnsServer ?? null }, settings);
      case 'ping':
      case 'keyword':
        return probeHttp(target);
    }
  }

  async function probeHttp(target: ProbeTarget): Promise<ProbeOutcome> {
    throwIfStopping(stop);
    const { signal, release } = requestScope(settings.timeoutMs, stop);
    try {
      return await probeHttpWithin(target, signal);
    } finally {
      release();
    }
  }

  async function probeHttpWithin(target: ProbeTarget, signal: AbortSignal): Promise<ProbeOutcome> {
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({
        origin: new URL(target.url).origin,
        path: pathOf(target.url),
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
