import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Addresses a probe must not reach when private targets are blocked: loopback,
 * private, link-local, metadata, and the documentation and benchmarking ranges
 * (no real service answers there; a target resolving to one is a mistake or a
 * rebinding trick).
 */
const blocked = new BlockList();
blocked.addSubnet('0.0.0.0', 8, 'ipv4');
blocked.addSubnet('10.0.0.0', 8, 'ipv4');
blocked.addSubnet('100.64.0.0', 10, 'ipv4');
blocked.addSubnet('127.0.0.0', 8, 'ipv4');
blocked.addSubnet('169.254.0.0', 16, 'ipv4');
blocked.addSubnet('172.16.0.0', 12, 'ipv4');
blocked.addSubnet('192.0.0.0', 24, 'ipv4');
blocked.addSubnet('192.0.2.0', 24, 'ipv4');
blocked.addSubnet('192.168.0.0', 16, 'ipv4');
blocked.addSubnet('198.18.0.0', 15, 'ipv4');
blocked.addSubnet('198.51.100.0', 24, 'ipv4');
blocked.addSubnet('203.0.113.0', 24, 'ipv4');
blocked.addSubnet('224.0.0.0', 3, 'ipv4');
blocked.addAddress('::1', 'ipv6');
blocked.addSubnet('fc00::', 7, 'ipv6');
blocked.addSubnet('fe80::', 10, 'ipv6');
blocked.addSubnet('ff00::', 8, 'ipv6');
blocked.addSubnet('2001:db8::', 32, 'ipv6');
blocked.addSubnet('3fff::', 20, 'ipv6');
blocked.addSubnet('2001:2::', 48, 'ipv6');
blocked.addAddress('::', 'ipv6');
// No IPv4-in-IPv6 ranges here: Node checks IPv4 addresses against ::ffff:0:0/96 rules too, so such a rule
// would block every IPv4 target. The IPv4 address those forms carry is checked instead (embeddedIpv4).

export class BlockedTargetError extends Error {
  readonly code = 'EBLOCKEDTARGET';
  constructor(address: string) {
    super(`blocked private target ${address}`);
    this.name = 'BlockedTargetError';
  }
}

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted quad expanded); null if it is not one. */
function ipv6Bytes(address: string): number[] | null {
  let text = address.toLowerCase().split('%')[0]!;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -quad[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const all = [...left, ...Array<string>(Math.max(0, fill)).fill('0'), ...right];
  if (all.length !== 8) return null;
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/**
 * The IPv4 address an IPv6 address carries, in any of its forms: IPv4-compatible
 * (::a.b.c.d), IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d),
 * NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002::/16); null for none.
 */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  if (!b) return null;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last = () => b.slice(12, 16).join('.');
  if (zero(0, 12)) return last();
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return last();
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return last();
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return last();
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return null;
}

/** How long the host's own addresses are trusted before they are read again (an interface may come or go). */
const OWN_ADDRESSES_TTL_MS = 10_000;
let own: { addresses: Set<string>; readAt: number } | null = null;

/** The addresses of this host's own interfaces, public ones too: a probe of one reaches this machine's services. */
function ownAddresses(): Set<string> {
  const now = Date.now();
  if (!own || now - own.readAt > OWN_ADDRESSES_TTL_MS) {
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.toLowerCase().split('%')[0]!));
    own = { addresses: new Set(addresses), readAt: now };
  }
  return own.addresses;
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (ownAddresses().has(address.toLowerCase().split('%')[0]!)) return true;
  if (family === 4) return blocked.check(address, 'ipv4');
  const inner = embeddedIpv4(address);
  if (inner !== null && ownAddresses().has(inner)) return true;
  return blocked.check(address, 'ipv6') || (inner !== null && inner !== '0.0.0.0' && blocked.check(inner, 'ipv4')) || inner === '0.0.0.0';
}

/** A DNS lookup that refuses names resolving to a blocked address: checked on the resolved address, not the name. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    const list = addresses as unknown as { address: string; family: number }[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad) {
      callback(new BlockedTargetError(`${hostname} (${bad.address})`) as NodeJS.ErrnoException, '', 0);
      return;
    }
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    } else {
      callback(null, list[0]!.address, list[0]!.family);
    }
  });
};
