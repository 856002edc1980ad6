import { TargetGuard } from './target-guard';

const dns = (table: Record<string, string[]>) => async (name: string) => {
  const found = table[name];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

describe('webhook targets', () => {
  const guard = new TargetGuard(
    false,
    dns({
      'hooks.example.com': ['93.184.215.14'],
      'internal.example.com': ['10.1.2.3'],
      'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
      'mapped.example.com': ['::ffff:192.168.1.1'],
    }),
  );

  it('accepts an https URL whose host resolves to public addresses, and connects to the checked one', async () => {
    const target = await guard.check('https://hooks.example.com/ca?x=1');
    expect(target.address).toBe('93.184.215.14');
    expect(target.url.pathname).toBe('/ca');
  });

  it.each([
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /https/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['https://internal.example.com/', /private or reserved/],
    ['https://mixed.example.com/', /private or reserved/],
    ['https://mapped.example.com/', /private or reserved/],
    ['https://127.0.0.1/', /private or reserved/],
    ['https://[::1]/', /private or reserved/],
    ['https://169.254.169.254/latest/meta-data', /private or reserved/],
    ['https://[64:ff9b::a00:1]/', /private or reserved/],
    ['https://[2002:a00:1::1]/', /private or reserved/],
    ['https://nowhere.example.com/', /does not resolve/],
    ['not a url', /not a URL/],
  ])('refuses %s', async (url, reason) => {
    await expect(guard.check(url)).rejects.toThrow(reason);
  });

  it('allows http and private addresses when the deployment does (tests)', async () => {
    const open = new TargetGuard(true, dns({}));
    expect((await open.check('http://127.0.0.1:8080/hook')).address).toBe('127.0.0.1');
  });
});
