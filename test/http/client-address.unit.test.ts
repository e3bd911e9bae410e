import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createClientAddress, parseProxyRange } from '../../src/infrastructure/client-address.js';

/** A request as node:http hands it over: the socket's peer and the headers, lowercased. */
const request = (remoteAddress: string | undefined, forwardedFor?: string | string[]) =>
  ({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('the client address of a request', () => {
  it('is the socket address when no proxy is trusted (the default), whatever X-Forwarded-For says', () => {
    const address = createClientAddress([]);
    expect(address(request('198.51.100.7', '203.0.113.1'))).toBe('198.51.100.7');
    expect(address(request('198.51.100.7'))).toBe('198.51.100.7');
  });

  it('ignores X-Forwarded-For from a socket address that is not a trusted proxy', () => {
    const address = createClientAddress(['10.0.0.1']);
    expect(address(request('198.51.100.7', '203.0.113.1'))).toBe('198.51.100.7');
  });

  it('is the entry a trusted proxy added: entries a client prepended to spoof another address are ignored', () => {
    const address = createClientAddress(['10.0.0.1']);
    // The client sent "X-Forwarded-For: 192.0.2.99, 192.0.2.100"; the proxy appended the address it saw.
    expect(address(request('10.0.0.1', '192.0.2.99, 192.0.2.100, 203.0.113.1'))).toBe('203.0.113.1');
    expect(address(request('10.0.0.1', '203.0.113.1'))).toBe('203.0.113.1');
  });

  it('walks past every trusted proxy of a chain, from the socket leftward, to the first hop that is not one', () => {
    const address = createClientAddress(['10.0.0.0/8', '192.168.1.5']);
    expect(address(request('10.1.2.3', '192.0.2.99, 203.0.113.1, 192.168.1.5, 10.9.9.9'))).toBe('203.0.113.1');
    // Several X-Forwarded-For headers count as one list, in order.
    expect(address(request('10.1.2.3', ['192.0.2.99, 203.0.113.2', '10.9.9.9']))).toBe('203.0.113.2');
  });

  it('is the furthest hop when every hop is a trusted proxy, and the socket address without the header', () => {
    const address = createClientAddress(['10.0.0.0/8']);
    expect(address(request('10.0.0.1', '10.0.0.3, 10.0.0.2'))).toBe('10.0.0.3');
    expect(address(request('10.0.0.1'))).toBe('10.0.0.1');
    expect(address(request('10.0.0.1', ''))).toBe('10.0.0.1');
  });

  it('stops at an entry that is not an address: the hop that sent it is as far as can be told', () => {
    const address = createClientAddress(['10.0.0.0/8']);
    expect(address(request('10.0.0.1', 'unknown, 10.0.0.2'))).toBe('10.0.0.2');
    expect(address(request('10.0.0.1', '203.0.113.1, <script>'))).toBe('10.0.0.1');
  });

  it('handles IPv6: proxies and ranges, clients, bracketed entries with a port', () => {
    const address = createClientAddress(['::1', 'fd00::/8']);
    expect(address(request('::1', '2001:db8::7'))).toBe('2001:db8::7');
    expect(address(request('fd12:3456::1', '2001:db8::9, fd00::2'))).toBe('2001:db8::9');
    expect(address(request('::1', '[2001:db8::8]:51234'))).toBe('2001:db8::8');
    expect(address(request('fe80::1', '2001:db8::7'))).toBe('fe80::1');
  });

  it('matches an IPv4 client of a dual-stack socket (::ffff:a.b.c.d) against IPv4 ranges, and reports it as IPv4', () => {
    const address = createClientAddress(['127.0.0.1', '10.0.0.0/8']);
    expect(address(request('::ffff:127.0.0.1', '::ffff:203.0.113.1'))).toBe('203.0.113.1');
    expect(address(request('::ffff:10.2.3.4', '203.0.113.5:8443'))).toBe('203.0.113.5');
    expect(createClientAddress([])(request('::ffff:198.51.100.7'))).toBe('198.51.100.7');
  });

  it('accepts addresses and CIDR ranges of both families in the list, and nothing else', () => {
    for (const ok of ['10.0.0.1', '10.0.0.0/8', '0.0.0.0/0', '::1', 'fd00::/8', '2001:db8::/128']) expect(parseProxyRange(ok), ok).not.toBeNull();
    for (const bad of ['', 'proxy.internal', '10.0.0.0/33', '10.0.0.0/', '::/129', '10.0.0.1/8x', '300.1.1.1', '10.0.0.0/-1']) {
      expect(parseProxyRange(bad), bad).toBeNull();
    }
    expect(() => createClientAddress(['not-an-address'])).toThrow(/not-an-address/);
  });
});
