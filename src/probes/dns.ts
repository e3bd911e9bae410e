import { Resolver } from 'node:dns/promises';
import type { DnsRecord } from '../domain/monitors/monitor.js';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { resolverAddress } from '../domain/monitors/resolver-address.js';
import { throwIfStopping } from '../infrastructure/outbound.js';
import { isBlockedAddress } from '../infrastructure/target-guard.js';
import type { ProbeKind } from './probe-kind.js';
import type { ProbeSettings } from './probe-settings.js';

interface DnsQuery {
  /** `dns://name` */
  url: string;
  record: DnsRecord;
  /** The answers that count as up; null: any answer. */
  expect: readonly string[] | null;
  /** `address[:port]`; null: the system's resolvers. */
  server: string | null;
}

/** Names compare without case and without the root's trailing dot. */
const normalize = (value: string): string => value.trim().toLowerCase().replace(/\.$/, '');

async function answersOf(resolver: Resolver, name: string, record: DnsRecord): Promise<string[]> {
  switch (record) {
    case 'A':
      return resolver.resolve4(name);
    case 'AAAA':
      return resolver.resolve6(name);
    case 'CNAME':
      return resolver.resolveCname(name);
    case 'NS':
      return resolver.resolveNs(name);
    case 'MX':
      return (await resolver.resolveMx(name)).map((mx) => mx.exchange);
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  }
}

/** Up when the name has the record (and, with `expect`, one of its answers is expected). */
async function probeDns(query: DnsQuery, settings: ProbeSettings): Promise<ProbeOutcome> {
  throwIfStopping(settings.stop);
  const name = new URL(query.url).hostname;
  const resolver = new Resolver({ timeout: settings.timeoutMs, tries: 1 });
  if (query.server !== null) {
    const server = resolverAddress(query.server);
    if (!server) return { ok: false, reason: `not a resolver address: ${query.server}` };
    if (settings.blockPrivateTargets && isBlockedAddress(server.host)) return { ok: false, reason: `blocked private target ${server.host}` };
    resolver.setServers([server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`]);
  }
  const onStop = () => resolver.cancel();
  settings.stop?.addEventListener('abort', onStop, { once: true });
  let answers: string[];
  try {
    answers = await answersOf(resolver, name, query.record);
  } catch (error) {
    throwIfStopping(settings.stop);
    const code = (error as { code?: string }).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { ok: false, reason: `no ${query.record} record for ${name}` };
    if (code === 'ETIMEOUT') return { ok: false, reason: `timeout after ${settings.timeoutMs / 1000} s` };
    if (code === 'ECONNREFUSED') return { ok: false, reason: 'connection refused' };
    return { ok: false, reason: `${code ?? 'DNS error'} asking for the ${query.record} record of ${name}` };
  } finally {
    settings.stop?.removeEventListener('abort', onStop);
  }
  if (answers.length === 0) return { ok: false, reason: `no ${query.record} record for ${name}` };
  if (query.expect === null) return { ok: true };
  const expected = new Set(query.expect.map(normalize));
  if (answers.some((a) => expected.has(normalize(a)))) return { ok: true };
  return { ok: false, reason: `answered ${answers.join(', ')}, expected ${query.expect.join(', ')}` };
}

export const dns = {
  kind: 'dns',
  probe: (target, { settings }) =>
    probeDns({ url: target.url, record: target.record ?? 'A', expect: target.expect ?? null, server: target.dnsServer ?? null }, settings),
} as const satisfies ProbeKind<'dns'>;
