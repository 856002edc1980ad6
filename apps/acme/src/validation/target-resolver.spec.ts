import { TargetRefused, TargetResolver, isNonPublicAddress } from './target-resolver';

const dns = (answers: Record<string, string[]>) => async (name: string) => {
  const found = answers[name];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

describe('TargetResolver', () => {
  it('uses an exact override before a wildcard one, and both before DNS', async () => {
    const resolver = new TargetResolver({
      overrides: new Map([
        ['app.example.test', '203.0.113.7'],
        ['*.example.test', '203.0.113.8'],
      ]),
      allowPrivateTargets: false,
      dnsLookup: dns({ 'app.example.test': ['198.51.100.1'], 'other.test': ['198.51.100.2'] }),
    });
    await expect(resolver.resolve('APP.example.test')).resolves.toBe('203.0.113.7');
    await expect(resolver.resolve('a.b.example.test')).resolves.toBe('203.0.113.8');
    await expect(resolver.resolve('other.test')).resolves.toBe('198.51.100.2');
    await expect(resolver.resolve('missing.test')).rejects.toThrow(/does not resolve/);
  });

  it('refuses loopback, private and link-local targets unless the deployment allows them', async () => {
    const overrides = new Map([
      ['loop.test', '127.0.0.1'],
      ['lan.test', '192.168.1.5'],
      ['meta.test', '169.254.169.254'],
      ['v6.test', '::1'],
    ]);
    const strict = new TargetResolver({ overrides, allowPrivateTargets: false });
    for (const name of overrides.keys()) {
      await expect(strict.resolve(name)).rejects.toBeInstanceOf(TargetRefused);
    }
    const lenient = new TargetResolver({ overrides, allowPrivateTargets: true });
    await expect(lenient.resolve('loop.test')).resolves.toBe('127.0.0.1');
  });

  it('skips private answers from DNS and keeps a public one', async () => {
    const resolver = new TargetResolver({
      overrides: new Map(),
      allowPrivateTargets: false,
      dnsLookup: dns({ 'mixed.test': ['10.0.0.1', '198.51.100.9'] }),
    });
    await expect(resolver.resolve('mixed.test')).resolves.toBe('198.51.100.9');
  });

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
});
