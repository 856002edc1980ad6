import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCertificate } from './x509';

const fixture = (name: string) => readFileSync(join(__dirname, 'testdata', name), 'utf8');

/** Golden certificates made by the openssl CLI (testdata/): what the detail page says about them. */
describe('readCertificate', () => {
  const leaf = readCertificate(fixture('leaf.pem'));
  const ca = readCertificate(fixture('issuing-ca.pem'));

  it('reads the names, serial, validity and key as openssl prints them', () => {
    expect(leaf.subject).toBe('C=US, O=Acme, OU=Payments, CN=api.example.com');
    expect(leaf.issuer).toBe('C=US, O=Acme, CN=Acme Issuing');
    expect(leaf.serialNumber).toBe('8A3F00112233445566');
    expect(leaf.notBefore.toISOString()).toBe('2026-12-05T15:04:05.000Z');
    expect(leaf.notAfter.toISOString()).toBe('2027-03-05T15:04:05.000Z');
    expect(leaf.publicKey).toBe('ECDSA P-256');
    expect(leaf.signatureAlgorithm).toBe('ECDSA with SHA-256');
    expect(leaf.version).toBe(3);
  });

  it('says each extension in words', () => {
    const words = Object.fromEntries(leaf.extensions.map((e) => [e.name, e.description]));
    expect(words['Subject Alternative Name']).toBe('DNS api.example.com, DNS *.api.example.com');
    expect(words['Key Usage']).toBe('digital signature');
    expect(words['Extended Key Usage']).toBe('TLS server authentication, TLS client authentication');
    expect(words['Basic Constraints']).toBe('not a CA');
    expect(words['CRL Distribution Points']).toBe('URI http://pki.example.com/v1/tenants/t/crl');
    expect(words['Authority Information Access']).toBe(
      'OCSP: URI http://pki.example.com/v1/tenants/t/ocsp, CA issuers: URI http://pki.example.com/v1/tenants/t/ca.crt',
    );
    expect(words['TLS Feature']).toBe('OCSP must-staple');
    expect(leaf.extensions.find((e) => e.name === 'Key Usage')?.critical).toBe(true);
    expect(leaf.ocspUrls).toEqual(['http://pki.example.com/v1/tenants/t/ocsp']);
  });

  it("reads a CA's constraints and links a leaf to its issuer by key identifier", () => {
    const words = Object.fromEntries(ca.extensions.map((e) => [e.name, e.description]));
    expect(words['Basic Constraints']).toBe('a CA; at most 0 CA below it');
    expect(words['Key Usage']).toBe('certificate signing, CRL signing');
    expect(words['Name Constraints']).toBe('permitted: DNS example.com; excluded: IP range 0.0.0.0/0.0.0.0');
    expect(leaf.authorityKeyId).toBe(ca.subjectKeyId);
  });
});
