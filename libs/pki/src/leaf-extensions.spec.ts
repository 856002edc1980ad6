import * as pkijs from 'pkijs';

import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { keyIdentifier } from './extensions';
import { encodeLeafExtensions, keyIdentifierOfSpki } from './leaf-extensions';
import type { LeafCertificateProfile } from './leaf-certificate.builder';

const profile = (overrides: Partial<LeafCertificateProfile> = {}): LeafCertificateProfile => ({
  subject: { commonName: 'leaf' },
  notBefore: new Date('2026-01-01T00:00:00Z'),
  notAfter: new Date('2027-01-01T00:00:00Z'),
  serialNumber: Uint8Array.of(1),
  extendedKeyUsages: ['clientAuth'],
  crlDistributionPointUrl: 'http://pki.example/v1/tenants/a/crl',
  ocspUrl: 'http://pki.example/v1/tenants/a/ocsp',
  caIssuersUrl: 'http://pki.example/v1/tenants/a/ca.crt',
  ...overrides,
});
const ski = new Uint8Array(20).fill(1);
const aki = new Uint8Array(20).fill(2);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('leaf extensions (cached DER)', () => {
  it('computes the SKI from SPKI bytes as keyIdentifier does from the parsed key', async () => {
    const spki = await exportSpkiDer((await generateEcKeyPair(false)).publicKey);
    expect(hex(keyIdentifierOfSpki(spki))).toBe(hex(keyIdentifier(pkijs.PublicKeyInfo.fromBER(spki))));
  });

  it('reuses the constant extensions but keeps each tenant its own URLs', () => {
    const a = encodeLeafExtensions(profile(), ski, aki);
    const again = encodeLeafExtensions(profile(), ski, aki);
    const b = encodeLeafExtensions(
      profile({ crlDistributionPointUrl: 'http://pki.example/v1/tenants/b/crl' }),
      ski,
      aki,
    );
    expect(a.map(({ der }) => hex(der))).toEqual(again.map(({ der }) => hex(der)));
    const cdp = (list: typeof a) => hex(list.find(({ extnID }) => extnID === '2.5.29.31')!.der);
    expect(cdp(b)).not.toBe(cdp(a));
    expect(Buffer.from(cdp(b), 'hex').toString('latin1')).toContain('/tenants/b/crl');
  });

  it('refuses an extension that would appear twice (RFC 5280 4.2)', () => {
    const value = Uint8Array.of(0x05, 0x00);
    expect(() =>
      encodeLeafExtensions(
        profile({
          customExtensions: [
            { oid: '1.3.6.1.4.1.99999.2.1', value },
            { oid: '1.3.6.1.4.1.99999.2.1', value },
          ],
        }),
        ski,
        aki,
      ),
    ).toThrow(/would appear twice/);
  });
});
