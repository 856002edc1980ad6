import { isNonPublicAddress } from './non-public-address';

describe('isNonPublicAddress', () => {
  it('classifies addresses', () => {
    expect(isNonPublicAddress('10.1.2.3')).toBe(true);
    expect(isNonPublicAddress('172.20.0.1')).toBe(true);
    expect(isNonPublicAddress('fe80::1')).toBe(true);
    expect(isNonPublicAddress('fd00::1')).toBe(true);
    expect(isNonPublicAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isNonPublicAddress('8.8.8.8')).toBe(false);
    expect(isNonPublicAddress('2001:4860::8888')).toBe(false);
    expect(isNonPublicAddress('not an ip')).toBe(true);
  });

  it.each([
    ['64:ff9b::a00:1', 'NAT64 well-known prefix (RFC 6052), reaching 10.0.0.1'],
    ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix (RFC 8215)'],
    ['2002:a00:1::1', '6to4 (RFC 3056), wrapping 10.0.0.1'],
    ['::7f00:1', 'IPv4-compatible (RFC 4291 2.5.5.1), 127.0.0.1'],
    ['::a00:1', 'IPv4-compatible, 10.0.0.1'],
    ['fec0::1', 'site-local (RFC 3879)'],
    ['100::1', 'discard-only (RFC 6666)'],
    ['2001::1', 'Teredo (RFC 4380)'],
    ['::ffff:7f00:1', 'IPv4-mapped in hex, 127.0.0.1'],
  ])('refuses %s (%s)', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(true);
  });

  it.each([
    ['169.254.169.254', 'cloud metadata (link-local, RFC 3927)'],
    ['100.64.0.1', 'carrier-grade NAT (RFC 6598)'],
    ['0.0.0.0', '"this network" (RFC 791)'],
    ['224.0.0.251', 'multicast (RFC 5771)'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'unspecified'],
    ['ff02::1', 'IPv6 multicast'],
  ])('refuses %s (%s)', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(true);
  });

  it.each(['172.32.0.1', '100.128.0.1', '11.0.0.1', '198.20.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'lets the public address %s through (the ranges end where their RFCs say)',
    (ip) => {
      expect(isNonPublicAddress(ip)).toBe(false);
    },
  );
});
