import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildCaCertificate } from './ca-certificate.builder';
import { parseCertificate } from './certificate.parser';
import { generateEcKeyPair } from './ec-key-pair';
import { derToPem, pemToDer } from './pem';
import { randomSerialNumber, serialToHex } from './serial-number';
import { describeIfOpenssl, runOpenssl } from './testing';

// Every artifact is cross-checked by an outside parser: here the openssl CLI.
describeIfOpenssl('CA certificate read by the openssl CLI', () => {
  const serialNumber = randomSerialNumber();
  let dir: string;
  let caPem: string;
  let der: Uint8Array;
  let text: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-ca-'));
    const keys = await generateEcKeyPair(false);
    der = await buildCaCertificate(
      {
        subject: {
          commonName: 'Acme Root CA',
          organization: 'Acme',
          organizationalUnit: 'PKI',
          country: 'US',
        },
        notBefore: new Date('2026-03-01T12:00:00Z'),
        notAfter: new Date('2056-03-01T12:00:00Z'),
        serialNumber,
      },
      keys,
    );
    caPem = join(dir, 'ca.pem');
    writeFileSync(caPem, derToPem(der));
    text = runOpenssl(['x509', '-in', caPem, '-noout', '-text']);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the subject as single-valued RDNs in the order C, O, OU, CN', () => {
    const subject = runOpenssl(['x509', '-in', caPem, '-noout', '-subject', '-issuer']);
    expect(subject).toBe(
      'subject=C = US, O = Acme, OU = PKI, CN = Acme Root CA\nissuer=C = US, O = Acme, OU = PKI, CN = Acme Root CA\n',
    );
  });

  it('prints the serial exactly as serialToHex', () => {
    expect(runOpenssl(['x509', '-in', caPem, '-noout', '-serial'])).toBe(
      `serial=${serialToHex(serialNumber)}\n`,
    );
  });

  it('shows a v3 ecdsa-with-SHA256 certificate on P-256', () => {
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toContain('ASN1 OID: prime256v1');
  });

  it('shows basicConstraints CA:TRUE and keyUsage Certificate Sign, CRL Sign, both critical', () => {
    expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
    expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Certificate Sign, CRL Sign\n/);
  });

  it('shows SKI and AKI as the same key identifier that parseCertificate reports', () => {
    const keyId = parseCertificate(der).subjectKeyIdentifierHex!.match(/../g)!.join(':');
    expect(text).toMatch(new RegExp(`X509v3 Subject Key Identifier: \\n\\s+${keyId}\\n`));
    expect(text).toMatch(new RegExp(`X509v3 Authority Key Identifier: \\n\\s+(keyid:)?${keyId}\\n`));
  });

  it('shows the validity up to 2056, past the UTCTime range', () => {
    expect(runOpenssl(['x509', '-in', caPem, '-noout', '-dates'])).toBe(
      'notBefore=Mar  1 12:00:00 2026 GMT\nnotAfter=Mar  1 12:00:00 2056 GMT\n',
    );
    // The DER really holds a GeneralizedTime (tag 0x18) for notAfter and a UTCTime (0x17) for notBefore.
    const asn1 = runOpenssl(['asn1parse', '-in', caPem]);
    expect(asn1).toMatch(/UTCTIME\s+:260301120000Z/);
    expect(asn1).toMatch(/GENERALIZEDTIME\s+:20560301120000Z/);
  });

  it('verifies as a trust root against itself, also under -x509_strict', () => {
    expect(runOpenssl(['verify', '-CAfile', caPem, caPem])).toBe(`${caPem}: OK\n`);
    expect(runOpenssl(['verify', '-x509_strict', '-CAfile', caPem, caPem])).toBe(`${caPem}: OK\n`);
  });

  it('writes the same PEM and fingerprint as openssl', () => {
    expect(runOpenssl(['x509', '-in', caPem])).toBe(derToPem(der));
    expect(pemToDer(runOpenssl(['x509', '-in', caPem]))).toEqual(der);
    const fingerprint = runOpenssl(['x509', '-in', caPem, '-noout', '-fingerprint', '-sha256']);
    expect(fingerprint.trim().split('=')[1].replace(/:/g, '')).toBe(
      parseCertificate(der).sha256FingerprintHex,
    );
  });
});
