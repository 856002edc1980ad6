import { ConfigError } from './config-error';
import { parseDnsResolvers, parseResolveList, readAcmeSettings } from './acme.config';

describe('ACME settings', () => {
  it('defaults to the RFC ports, DNS only and no private targets', () => {
    expect(readAcmeSettings({})).toMatchObject({
      http01Port: 80,
      tlsAlpn01Port: 443,
      allowPrivateTargets: false,
    });
    expect(readAcmeSettings({}).resolve.size).toBe(0);
    expect(readAcmeSettings({}).dnsResolvers).toEqual([]);
  });

  it('reads the dns-01 resolvers, port 53 unless given', () => {
    expect(parseDnsResolvers(' 127.0.0.1:5353, 10.0.0.2 ,[::1]:5300,fd00::2,[fd00::3]')).toEqual([
      '127.0.0.1:5353',
      '10.0.0.2:53',
      '[::1]:5300',
      '[fd00::2]:53',
      '[fd00::3]:53',
    ]);
  });

  it('reads ports, the resolve list and the private-target switch', () => {
    const settings = readAcmeSettings({
      ACME_HTTP01_PORT: '5002',
      ACME_TLSALPN01_PORT: '5001',
      ACME_RESOLVE: ' App.Example.test=127.0.0.1 , *.example.test=::1',
      ACME_ALLOW_PRIVATE_TARGETS: 'true',
    });
    expect(settings).toMatchObject({ http01Port: 5002, tlsAlpn01Port: 5001, allowPrivateTargets: true });
    expect([...settings.resolve]).toEqual([
      ['app.example.test', '127.0.0.1'],
      ['*.example.test', '::1'],
    ]);
  });

  it.each([
    ['ACME_HTTP01_PORT', '0'],
    ['ACME_TLSALPN01_PORT', '65536'],
    ['ACME_ALLOW_PRIVATE_TARGETS', 'yes'],
    ['ACME_RESOLVE', 'app.example.test'],
    ['ACME_RESOLVE', 'app.example.test=not-an-ip'],
    ['ACME_RESOLVE', 'a=b=c'],
    ['ACME_RESOLVE', 'bad name=127.0.0.1'],
    ['ACME_DNS_RESOLVER', 'dns.example.test:53'],
    ['ACME_DNS_RESOLVER', '127.0.0.1:0'],
    ['ACME_DNS_RESOLVER', '127.0.0.1:65536'],
    ['ACME_DNS_RESOLVER', '[127.0.0.1]:53'],
    ['ACME_DNS_RESOLVER', '1.2.3:53'],
  ])('refuses %s=%j naming the variable', (name, value) => {
    expect(() => readAcmeSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => readAcmeSettings({ [name]: value })).toThrow(name);
  });

  it('takes an empty resolve list as none', () => {
    expect(parseResolveList(' , ').size).toBe(0);
  });
});
