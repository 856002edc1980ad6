import { CertificateUsage } from '@ca/contracts';
import { customExtensionsOf, normalizedHostNames, type CertificateProfile } from './certificate-profile';

describe('normalizedHostNames', () => {
  it('lower-cases SANs and a server host-name CN, and adds the CN as the first SAN when missing', () => {
    expect(normalizedHostNames(CertificateUsage.Server, 'WWW.Example.com', ['API.example.com'])).toEqual({
      commonName: 'www.example.com',
      dnsNames: ['www.example.com', 'api.example.com'],
    });
    expect(
      normalizedHostNames(CertificateUsage.ClientAndServer, 'API.Example.com', ['api.EXAMPLE.com']),
    ).toEqual({
      commonName: 'api.example.com',
      dnsNames: ['api.example.com'],
    });
  });

  it('leaves a CN that is not a host name, and every client CN, as given', () => {
    expect(normalizedHostNames(CertificateUsage.Server, 'Edge Proxy', ['A.example.com'])).toEqual({
      commonName: 'Edge Proxy',
      dnsNames: ['a.example.com'],
    });
    expect(normalizedHostNames(CertificateUsage.Client, 'Payments.Example.com', [])).toEqual({
      commonName: 'Payments.Example.com',
      dnsNames: [],
    });
  });
});

describe('customExtensionsOf', () => {
  const profile = {
    customExtensions: [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ],
  } as CertificateProfile;

  it('puts each key under its own arc, whatever its position', () => {
    const oids = customExtensionsOf(
      profile,
      new Map([
        ['a', 7],
        ['b', 3],
      ]),
    ).map(({ oid }) => oid);
    expect(oids).toEqual(['1.3.6.1.4.1.99999.2.7', '1.3.6.1.4.1.99999.2.3']);
  });

  it('refuses a key without an arc rather than guess one', () => {
    expect(() => customExtensionsOf(profile, new Map([['a', 1]]))).toThrow(/"b"/);
  });
});
