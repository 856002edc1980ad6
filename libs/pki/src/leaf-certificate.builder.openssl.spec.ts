import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as asn1js from 'asn1js';

import { buildCaCertificate } from './ca-certificate.builder';
import { parseCertificate } from './certificate.parser';
import { generateEcKeyPair } from './ec-key-pair';
import {
  buildLeafCertificate,
  type IssuerKey,
  type LeafCertificateProfile,
} from './leaf-certificate.builder';
import { derToPem } from './pem';
import { exportPrivateKeyPem, generateLeafKeyPair } from './private-key';
import { randomSerialNumber, serialToHex } from './serial-number';
import { describeIfOpenssl, runOpenssl } from './testing';

const PKI = 'https://pki.example.com/v1/tenants/3f2c1a9e-0000-4000-8000-000000000001';
const colonHex = (hex: string) => hex.match(/../g)!.join(':');

// Every artifact is cross-checked by an outside parser: here the openssl CLI.
describeIfOpenssl('leaf certificates read by the openssl CLI', () => {
  let dir: string;
  let caPem: string;
  let caSkiHex: string;
  const clientSerial = randomSerialNumber();
  const files: Record<
    'client' | 'server' | 'ocsp' | 'nameless',
    { cert: string; key: string; text: string }
  > = {
    client: { cert: '', key: '', text: '' },
    server: { cert: '', key: '', text: '' },
    ocsp: { cert: '', key: '', text: '' },
    nameless: { cert: '', key: '', text: '' },
  };
  // Longer than ub-common-name (64): it can only be a SAN.
  const longName = `${'a'.repeat(60)}.${'b'.repeat(20)}.example.com`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-leaf-'));
    const caKeys = await generateEcKeyPair(false);
    const caDer = await buildCaCertificate(
      {
        subject: {
          country: 'US',
          organization: 'Acme',
          organizationalUnit: 'PKI',
          commonName: 'Acme Root CA',
        },
        notBefore: new Date(Date.now() - 60_000),
        notAfter: new Date(Date.now() + 10 * 365 * 86_400_000),
        serialNumber: randomSerialNumber(),
      },
      caKeys,
    );
    caSkiHex = parseCertificate(caDer).subjectKeyIdentifierHex!;
    caPem = join(dir, 'ca.pem');
    writeFileSync(caPem, derToPem(caDer));
    const issuer: IssuerKey = { certificateDer: caDer, privateKey: caKeys.privateKey };

    const common = {
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 90 * 86_400_000),
      crlDistributionPointUrl: `${PKI}/crl`,
      ocspUrl: `${PKI}/ocsp`,
      caIssuersUrl: `${PKI}/ca.crt`,
    };
    const profiles: Record<keyof typeof files, LeafCertificateProfile> = {
      client: {
        ...common,
        subject: {
          country: 'DE',
          organization: 'Tenant GmbH',
          organizationalUnit: 'Ops',
          commonName: 'client-7',
        },
        serialNumber: clientSerial,
        extendedKeyUsages: ['clientAuth'],
      },
      server: {
        ...common,
        subject: { country: 'DE', organization: 'Tenant GmbH', organizationalUnit: 'Web', commonName: 'api' },
        serialNumber: randomSerialNumber(),
        extendedKeyUsages: ['serverAuth', 'clientAuth'],
        dnsNames: ['example.com', '*.example.com'],
        mustStaple: true,
        customExtensions: [
          {
            oid: '1.3.6.1.4.1.99999.2.1',
            value: new Uint8Array(new asn1js.Utf8String({ value: 'team=payments' }).toBER(false)),
          },
        ],
      },
      ocsp: {
        ...common,
        subject: { organization: 'Acme', commonName: 'Acme Root CA OCSP Responder' },
        serialNumber: randomSerialNumber(),
        extendedKeyUsages: ['ocspSigning'],
        ocspNoCheck: true,
      },
      nameless: {
        ...common,
        subject: {},
        serialNumber: randomSerialNumber(),
        extendedKeyUsages: ['serverAuth'],
        dnsNames: [longName],
      },
    };
    for (const kind of ['client', 'server', 'ocsp', 'nameless'] as const) {
      const keys = await generateLeafKeyPair();
      const der = await buildLeafCertificate(profiles[kind], keys.publicKey, issuer);
      const cert = join(dir, `${kind}.pem`);
      const key = join(dir, `${kind}.key.pem`);
      writeFileSync(cert, derToPem(der));
      writeFileSync(key, await exportPrivateKeyPem(keys.privateKey));
      files[kind] = { cert, key, text: runOpenssl(['x509', '-in', cert, '-noout', '-text']) };
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['client', 'server', 'ocsp', 'nameless'] as const)(
    'verifies the %s leaf against the CA under -x509_strict',
    (kind) => {
      const { cert } = files[kind];
      expect(runOpenssl(['verify', '-x509_strict', '-CAfile', caPem, cert])).toBe(`${cert}: OK\n`);
    },
  );

  it('gives a leaf without subject a critical subjectAltName (RFC 5280 4.2.1.6), which openssl takes for TLS servers', () => {
    const { cert, text } = files.nameless;
    expect(runOpenssl(['x509', '-in', cert, '-noout', '-subject'])).toBe('subject=\n');
    expect(text).toMatch(/X509v3 Subject Alternative Name: critical\n\s+DNS:a{60}\.b{20}\.example\.com\n/);
    expect(
      runOpenssl([
        'verify',
        '-x509_strict',
        '-purpose',
        'sslserver',
        '-verify_hostname',
        longName,
        '-CAfile',
        caPem,
        cert,
      ]),
    ).toBe(`${cert}: OK\n`);
    expect(files.server.text).toMatch(/X509v3 Subject Alternative Name: \n/);
  });

  it('verifies each leaf for its TLS purpose, and not for the other', () => {
    const verify = (purpose: string, cert: string) =>
      runOpenssl(['verify', '-x509_strict', '-purpose', purpose, '-CAfile', caPem, cert]);
    expect(verify('sslclient', files.client.cert)).toBe(`${files.client.cert}: OK\n`);
    expect(verify('sslserver', files.server.cert)).toBe(`${files.server.cert}: OK\n`);
    expect(verify('sslclient', files.server.cert)).toBe(`${files.server.cert}: OK\n`);
    expect(() => verify('sslserver', files.client.cert)).toThrow(/unsuitable certificate purpose/);
  });

  it('prints subject, issuer and serial as the profile and the CA give them', () => {
    expect(runOpenssl(['x509', '-in', files.client.cert, '-noout', '-subject', '-issuer', '-serial'])).toBe(
      'subject=C = DE, O = Tenant GmbH, OU = Ops, CN = client-7\n' +
        'issuer=C = US, O = Acme, OU = PKI, CN = Acme Root CA\n' +
        `serial=${serialToHex(clientSerial)}\n`,
    );
  });

  it('shows the extensions every issued certificate carries (docs/api.md#certificate-profile)', () => {
    const { text } = files.client;
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
    expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature\n/);
    expect(text).toMatch(/X509v3 Extended Key Usage: \n\s+TLS Web Client Authentication\n/);
    expect(text).toMatch(/X509v3 Subject Key Identifier: \n\s+([0-9A-F]{2}:){19}[0-9A-F]{2}\n/);
    expect(text).toMatch(
      new RegExp(`X509v3 Authority Key Identifier: \\n\\s+(keyid:)?${colonHex(caSkiHex)}\\n`),
    );
    expect(text).toMatch(/X509v3 CRL Distribution Points: \n\s+Full Name:\n\s+URI:(\S+)\n/);
    expect(text).toContain(`URI:${PKI}/crl\n`);
    expect(text).toMatch(
      new RegExp(
        String.raw`Authority Information Access: \n\s+OCSP - URI:${PKI}/ocsp\n\s+CA Issuers - URI:${PKI}/ca\.crt\n`,
      ),
    );
    expect(text).not.toContain('Subject Alternative Name');
    expect(text).not.toContain('TLS Feature');
  });

  it('shows the server leaf with both EKUs, the wildcard SAN, must-staple and the custom extension', () => {
    const { text } = files.server;
    expect(text).toMatch(
      /X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication\n/,
    );
    expect(text).toMatch(/X509v3 Subject Alternative Name: \n\s+DNS:example\.com, DNS:\*\.example\.com\n/);
    expect(text).toMatch(/TLS Feature: \n\s+status_request\n/);
    // openssl dumps an unknown extension's value as text: the UTF8String tag 0x0C as '.', the length
    // 0x0D (a carriage return) as is, then the string.
    expect(text).toMatch(/1\.3\.6\.1\.4\.1\.99999\.2\.1: \n\s+\.\rteam=payments\n/);
  });

  it('shows the delegated OCSP signer with OCSP Signing and OCSP No Check', () => {
    const { text } = files.ocsp;
    expect(text).toMatch(/X509v3 Extended Key Usage: \n\s+OCSP Signing\n/);
    // The NULL value prints as an empty line.
    expect(text).toMatch(/OCSP No Check: \n\n/);
  });

  it('reads the exported private key, whose public key is the one in the certificate', () => {
    for (const { cert, key } of Object.values(files)) {
      expect(runOpenssl(['pkey', '-in', key, '-noout'])).toBe('');
      expect(runOpenssl(['pkey', '-in', key, '-pubout'])).toBe(
        runOpenssl(['x509', '-in', cert, '-noout', '-pubkey']),
      );
    }
  });
});
