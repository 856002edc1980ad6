import { TargetRefused, TargetResolver } from './target-resolver';

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
});
