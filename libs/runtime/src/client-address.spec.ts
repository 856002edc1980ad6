import { TrustedProxies, clientKey } from './client-address';

describe('clientKey', () => {
  it('is the IPv4 address, an IPv4-mapped one included, and an IPv6 client by its /64', () => {
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:0db8:0001:0002::/64');
    expect(clientKey('2001:db8:1:2::ffff')).toBe(clientKey('2001:DB8:1:2:9:9:9:9'));
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey('::1')).toBe('0000:0000:0000:0000::/64');
  });
});

describe('TrustedProxies', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32']);

  it('believes no forwarding header by default', () => {
    const none = new TrustedProxies([]);
    expect(none.clientAddress('10.1.1.1', { 'x-forwarded-for': '198.51.100.1' })).toBe('10.1.1.1');
  });

  it('ignores the headers of a peer that is not a trusted proxy', () => {
    expect(proxies.clientAddress('198.51.100.9', { 'x-forwarded-for': '198.51.100.1' })).toBe('198.51.100.9');
  });

  it('takes the nearest untrusted address of X-Forwarded-For, from the right', () => {
    const headers = { 'x-forwarded-for': '203.0.113.66, 198.51.100.1, 10.2.2.2' };
    expect(proxies.clientAddress('::ffff:10.1.1.1', headers)).toBe('198.51.100.1');
  });

  it('reads Forwarded (RFC 7239) first: quoted IPv6 with a port, IPv4 with a port', () => {
    const headers = {
      forwarded: 'for=203.0.113.66;proto=https, for="[2001:db9::1]:4711";by=10.0.0.1',
      'x-forwarded-for': '198.51.100.1',
    };
    expect(proxies.clientAddress('10.1.1.1', headers)).toBe('2001:db9::1');
    expect(proxies.clientAddress('10.1.1.1', { forwarded: 'for=198.51.100.2:80' })).toBe('198.51.100.2');
  });

  it('keeps the peer when the chain is missing or holds no address (obfuscated, garbage)', () => {
    expect(proxies.clientAddress('10.1.1.1', {})).toBe('10.1.1.1');
    expect(proxies.clientAddress('10.1.1.1', { forwarded: 'for=_hidden' })).toBe('10.1.1.1');
    expect(proxies.clientAddress('10.1.1.1', { 'x-forwarded-for': 'evil' })).toBe('10.1.1.1');
  });

  it('takes the leftmost address when every one is a trusted proxy', () => {
    expect(proxies.clientAddress('10.1.1.1', { 'x-forwarded-for': '10.3.3.3, 192.0.2.7' })).toBe('10.3.3.3');
  });
});
