import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from '../infrastructure/target-guard.js';
import { describeNetworkError } from '../infrastructure/outbound.js';

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
