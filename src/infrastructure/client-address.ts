import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The address a request comes from, as rate limits count it. */
export type ClientAddress = (req: IncomingMessage) => string;

/** An entry of `http.trust_proxy`: one address, or a CIDR range of either family. */
export interface ProxyRange {
  address: string;
  family: 'ipv4' | 'ipv6';
  /** Null for a single address. */
  prefix: number | null;
}

const familyOf = (address: string): 'ipv4' | 'ipv6' | null => {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : null;
};

/** `10.0.0.0/8`, `fd00::/8`, `10.0.0.1` or `::1`; null for anything else. */
export function parseProxyRange(entry: string): ProxyRange | null {
  const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry.trim());
  if (!m) return null;
  const address = m[1]!;
  const family = familyOf(address);
  if (!family) return null;
  if (m[2] === undefined) return { address, family, prefix: null };
  const prefix = Number(m[2]);
  return prefix <= (family === 'ipv4' ? 32 : 128) ? { address, family, prefix } : null;
}

/** A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; ranges and logs speak of a.b.c.d. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** One X-Forwarded-For entry as an address (some proxies add a port, IPv6 then in brackets); null when it is none. */
function hopAddress(entry: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  const address = plain(bracketed?.[1] ?? withPort?.[1] ?? entry);
  return familyOf(address) ? address : null;
}

/**
 * The client address of requests: the socket's peer, unless that is a proxy
 * of `trustProxy`; then X-Forwarded-For is walked from its right end (the hop
 * the proxy itself added) leftward for as long as the hops are trusted
 * proxies. Entries left of the first untrusted hop were written by the client
 * and are never believed.
 */
export function createClientAddress(trustProxy: readonly string[]): ClientAddress {
  const socketAddress: ClientAddress = (req) => plain(req.socket.remoteAddress ?? 'unknown');
  if (trustProxy.length === 0) return socketAddress;
  const trusted = new BlockList();
  for (const entry of trustProxy) {
    const range = parseProxyRange(entry);
    if (!range) throw new Error(`http.trust_proxy: ${entry} is not an IP address or a CIDR range`);
    if (range.prefix === null) trusted.addAddress(range.address, range.family);
    else trusted.addSubnet(range.address, range.prefix, range.family);
  }
  const isTrusted = (address: string): boolean => {
    const family = familyOf(address);
    try {
      return family !== null && trusted.check(address, family);
    } catch {
      // An address BlockList cannot read (an IPv6 zone, fe80::1%eth0) is nobody's proxy.
      return false;
    }
  };
  return (req) => {
    let address = socketAddress(req);
    if (!isTrusted(address)) return address;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop !== '');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]!);
      if (hop === null) return address;
      address = hop;
      if (!isTrusted(address)) return address;
    }
    return address;
  };
}
