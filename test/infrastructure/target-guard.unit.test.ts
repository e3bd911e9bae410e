import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from '../../src/infrastructure/target-guard.js';

describe('the outbound address guard', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 private', '10.1.2.3'],
    ['IPv4 link-local (cloud metadata)', '169.254.169.254'],
    ['IPv6 loopback', '::1'],
    ['the unspecified IPv6 address', '::'],
    ['IPv4-compatible IPv6', '::127.0.0.1'],
    ['IPv4-compatible IPv6, in hex', '::7f00:1'],
    ['IPv4-mapped IPv6', '::ffff:127.0.0.1'],
    ['IPv4-mapped IPv6, in hex', '::ffff:a9fe:a9fe'],
    ['IPv4-translated IPv6', '::ffff:0:127.0.0.1'],
    ['NAT64', '64:ff9b::7f00:1'],
    ['local-use NAT64', '64:ff9b:1::a00:1'],
    ['6to4', '2002:7f00:1::1'],
    ['IPv6 unique local', 'fd00::1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv4 documentation (TEST-NET-1)', '192.0.2.10'],
    ['IPv4 documentation (TEST-NET-2)', '198.51.100.7'],
    ['IPv4 documentation (TEST-NET-3)', '203.0.113.7'],
    ['IPv4 benchmarking', '198.19.1.1'],
    ['IPv6 documentation', '2001:db8::7'],
    ['IPv6 documentation (3fff::/20)', '3fff:0fff::1'],
    ['IPv6 benchmarking', '2001:2::1'],
    ['IPv4 documentation, IPv4-mapped', '::ffff:203.0.113.7'],
  ])('blocks %s (%s)', (_form, address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ['93.184.216.34'],
    ['1.1.1.1'],
    ['2606:2800:220:1:248:1893:25c8:1946'],
    ['2a00:1450:4001:82b::200e'],
    ['::ffff:93.184.216.34'],
    ['64:ff9b::5db8:d822'],
    ['2002:5db8:d822::1'],
  ])('lets a public address through (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it("blocks every address of this host's own interfaces, public ones too", () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .map((i) => i!.address);
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) expect(isBlockedAddress(address), address).toBe(true);
    for (const address of own.filter((a) => a.includes('.'))) expect(isBlockedAddress(`::ffff:${address}`), address).toBe(true);
  });
});
