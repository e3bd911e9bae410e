import { isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import type { ProbeSettings } from './probe-settings.js';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from '../infrastructure/target-guard.js';
import { describeNetworkError, throwIfStopping } from '../infrastructure/outbound.js';

/** Host and port of a probe's URL; the brackets of an IPv6 literal taken off. */
export function endpointOf(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port ? Number(u.port) : defaultPort };
}

/**
 * How a socket probe reaches its host under the private-target guard: names
 * are judged by what they resolve to, literals here (a literal is never looked up).
 */
export function guardFor(host: string, blockPrivateTargets: boolean): { lookup?: LookupFunction } {
  if (!blockPrivateTargets) return {};
  if (isIP(host) !== 0 && isBlockedAddress(host)) throw new BlockedTargetError(host);
  return { lookup: guardedLookup };
}

/** The words a user reads for a failed connection. */
export function describeSocketError(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: string } | undefined)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ETIMEDOUT' || code === 'ETIMEOUT') return `timeout after ${timeoutMs / 1000} s`;
  if (code === 'ENOTFOUND') return `host not found`;
  return describeNetworkError(error, timeoutMs);
}

/**
 * One socket probe from its connection to its answer: `open` makes the socket
 * (under `guardFor`'s guard), `ready` names the event that means it is up and
 * judges it. Ends at the timeout or the stop, and the socket is closed
 * whatever the outcome.
 */
export async function socketProbe<S extends Socket>(
  host: string,
  settings: ProbeSettings,
  open: (guard: { lookup?: LookupFunction }) => S,
  ready: { event: string; judge: (socket: S) => ProbeOutcome },
): Promise<ProbeOutcome> {
  throwIfStopping(settings.stop);
  let guard: ReturnType<typeof guardFor>;
  try {
    guard = guardFor(host, settings.blockPrivateTargets);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const outcome = await new Promise<ProbeOutcome>((resolve) => {
    const socket = open(guard);
    const finish = (result: ProbeOutcome) => {
      clearTimeout(timer);
      settings.stop?.removeEventListener('abort', onStop);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `timeout after ${settings.timeoutMs / 1000} s` }), settings.timeoutMs);
    const onStop = () => finish({ ok: false, reason: 'stopped' });
    settings.stop?.addEventListener('abort', onStop, { once: true });
    socket.once(ready.event, () => finish(ready.judge(socket)));
    socket.once('error', (error) => finish({ ok: false, reason: describeSocketError(error, settings.timeoutMs) }));
  });
  throwIfStopping(settings.stop);
  return outcome;
}
