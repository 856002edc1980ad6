import type { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';

import { buildCaCertificate } from './ca-certificate.builder';
import { parseCertificate } from './certificate.parser';
import { generateEcKeyPair } from './ec-key-pair';
import { CUSTOM_EXTENSION_ARC, encodeKeyValueExtension } from './key-value-extension';
import {
  buildLeafCertificate,
  type IssuerKey,
  type LeafCertificateProfile,
} from './leaf-certificate.builder';
import { derToPem } from './pem';
import { randomSerialNumber, serialFromHex, serialToHex } from './serial-number';
import { describeIfOpenssl, runOpenssl } from './testing';

/**
 * Property test of the leaf encoder: every certificate built from random valid input
 * (subject, serial, validity on both sides of 2050, EKUs, SANs, must-staple, custom extensions,
 * distribution points) parses back with the same fields; a sample is verified by the openssl CLI.
 */

jest.setTimeout(60_000);

const RUNS = 50;
const OPENSSL_SAMPLE = 20;
const second = (ms: number) => Math.floor(ms / 1000) * 1000;
const NOW = second(Date.now());
// A CA valid past 2049, so that leaves get both UTCTime and GeneralizedTime (RFC 5280 4.1.2.5).
const CA_NOT_BEFORE = NOW - 86_400_000;
const CA_NOT_AFTER = Date.UTC(2060, 0, 1);

const char = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  fc.constantFrom('é', 'ß', 'Ж', '中', '✓', '😀', '+', ',', '"', '\\'),
);
const text = (min: number, max: number) => fc.string({ unit: char, minLength: min, maxLength: max });
const HOST_NAME =
  /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+(?=[a-z0-9-]*[a-z])[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i;
const dnsName = fc
  .tuple(fc.boolean(), fc.domain())
  .map(([wild, name]) => (wild ? `*.${name}` : name))
  .filter((name) => name.length <= 253);

interface Input {
  profile: LeafCertificateProfile;
  keyIndex: number;
  custom: { key: string; value: string }[];
}

/** Validity inside the CA's, valid now (so that openssl verifies without -attime). */
const validity = fc
  .tuple(
    fc.integer({ min: CA_NOT_BEFORE, max: NOW - 1000 }),
    fc.integer({ min: NOW + 60_000, max: CA_NOT_AFTER }),
  )
  .map(([from, to]) => ({ notBefore: new Date(second(from)), notAfter: new Date(second(to)) }));

const input: fc.Arbitrary<Input> = fc
  .record({
    subject: fc.record(
      {
        commonName: text(1, 64),
        organization: text(1, 64),
        organizationalUnit: text(1, 64),
        country: fc.stringMatching(/^[A-Z]{2}$/),
      },
      { requiredKeys: ['commonName'] },
    ),
    // At least 64 significant bits (docs/lints.md), at most 20 octets, positive.
    serialHex: fc.bigInt({ min: 2n ** 63n, max: 2n ** 159n - 1n }).map((n) => n.toString(16).toUpperCase()),
    validity,
    extendedKeyUsages: fc.subarray(['clientAuth', 'serverAuth', 'ocspSigning'] as const, { minLength: 1 }),
    dnsNames: fc.uniqueArray(dnsName, { maxLength: 8, selector: (n) => n.toLowerCase() }),
    mustStaple: fc.boolean(),
    custom: fc.array(fc.record({ key: text(1, 255), value: text(0, 255) }), { maxLength: 10 }),
    tenant: fc.uuid(),
    keyIndex: fc.nat(2),
  })
  .map(
    ({
      subject,
      serialHex,
      validity: v,
      extendedKeyUsages,
      dnsNames,
      mustStaple,
      custom,
      tenant,
      keyIndex,
    }) => {
      const base = `https://pki.example.com/v1/tenants/${tenant}`;
      // A TLS server certificate has a dNSName SAN, and its host-name CN is one (docs/lints.md).
      if (extendedKeyUsages.includes('serverAuth')) {
        if (HOST_NAME.test(subject.commonName) && !dnsNames.includes(subject.commonName)) {
          dnsNames = [subject.commonName, ...dnsNames];
        }
        if (dnsNames.length === 0) dnsNames = ['server.example.com'];
        // And is valid at most 825 days, both ends included (docs/lints.md).
        const longest = v.notBefore.getTime() + 825 * 86_400_000 - 1000;
        if (v.notAfter.getTime() > longest) v = { ...v, notAfter: new Date(longest) };
      }
      return {
        keyIndex,
        custom,
        profile: {
          subject,
          ...v,
          serialNumber: serialFromHex(serialHex),
          extendedKeyUsages: [...extendedKeyUsages],
          dnsNames,
          mustStaple,
          customExtensions: custom.map(({ key, value }, i) => ({
            oid: `${CUSTOM_EXTENSION_ARC}.${i + 1}`,
            value: encodeKeyValueExtension(key, value),
          })),
          crlDistributionPointUrl: `${base}/crl`,
          ocspUrl: `${base}/ocsp`,
          caIssuersUrl: `${base}/ca.crt`,
        },
      };
    },
  );

describe('leaf certificates built from random valid input', () => {
  let issuer: IssuerKey;
  let caSkiHex: string;
  let caDer: Uint8Array;
  let leafKeys: webcrypto.CryptoKeyPair[];
  const sample: { der: Uint8Array; profile: LeafCertificateProfile }[] = [];

  beforeAll(async () => {
    const caKeys = await generateEcKeyPair(false);
    caDer = await buildCaCertificate(
      {
        subject: { country: 'DE', organization: 'Property Test', commonName: 'Property Root' },
        notBefore: new Date(CA_NOT_BEFORE),
        notAfter: new Date(CA_NOT_AFTER),
        serialNumber: randomSerialNumber(),
      },
      caKeys,
    );
    caSkiHex = parseCertificate(caDer).subjectKeyIdentifierHex!;
    issuer = { certificateDer: caDer, privateKey: caKeys.privateKey };
    leafKeys = await Promise.all([0, 1, 2].map(() => generateEcKeyPair(true)));
  });

  it('parse back with the fields they were built from', async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ profile, keyIndex, custom }) => {
        const der = await buildLeafCertificate(profile, leafKeys[keyIndex].publicKey, issuer);
        if (sample.length < OPENSSL_SAMPLE) sample.push({ der, profile });
        const info = parseCertificate(der);
        expect(info.subject).toEqual(profile.subject);
        expect(info.issuer).toEqual({
          country: 'DE',
          organization: 'Property Test',
          commonName: 'Property Root',
        });
        expect(info.serialNumberHex).toBe(serialToHex(profile.serialNumber));
        expect(info.notBefore.getTime()).toBe(profile.notBefore.getTime());
        expect(info.notAfter.getTime()).toBe(profile.notAfter.getTime());
        expect(info.isCa).toBe(false);
        expect(info.authorityKeyIdentifierHex).toBe(caSkiHex);
        expect(info.extendedKeyUsages).toEqual(profile.extendedKeyUsages);
        expect(info.dnsNames).toEqual(profile.dnsNames);
        expect(info.mustStaple).toBe(profile.mustStaple);
        expect(info.crlDistributionPointUrls).toEqual([profile.crlDistributionPointUrl]);
        expect(info.ocspUrls).toEqual([profile.ocspUrl]);
        expect(info.caIssuersUrls).toEqual([profile.caIssuersUrl]);
        expect(info.customExtensions).toEqual(
          custom.map(({ key, value }, i) => ({ oid: `${CUSTOM_EXTENSION_ARC}.${i + 1}`, key, value })),
        );
      }),
      { numRuns: RUNS },
    );
    expect(sample).toHaveLength(OPENSSL_SAMPLE);
  });

  describeIfOpenssl('a sample, as the openssl CLI reads it', () => {
    let dir: string;
    const files: string[] = [];

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pki-leaf-property-'));
      writeFileSync(join(dir, 'ca.pem'), derToPem(caDer));
      sample.forEach(({ der }, i) => {
        files.push(join(dir, `leaf-${i}.pem`));
        writeFileSync(files[i], derToPem(der));
      });
    });

    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('verifies every one under the CA with -x509_strict', () => {
      expect(files).toHaveLength(OPENSSL_SAMPLE);
      const out = runOpenssl(['verify', '-x509_strict', '-CAfile', join(dir, 'ca.pem'), ...files]);
      expect(out.trim().split('\n')).toEqual(files.map((f) => `${f}: OK`));
    });

    it('prints the serial, the validity and the DNS names each was built with', () => {
      // One openssl run for the whole sample: the certificates wrapped in a PKCS#7 bundle, printed.
      const bundle = join(dir, 'bundle.p7b');
      runOpenssl(['crl2pkcs7', '-nocrl', ...files.flatMap((f) => ['-certfile', f]), '-out', bundle]);
      const printed = runOpenssl(['pkcs7', '-in', bundle, '-print_certs', '-text', '-noout'])
        .split(/^Certificate:$/m)
        .slice(1);
      expect(printed).toHaveLength(OPENSSL_SAMPLE);
      sample.forEach(({ profile }, i) => {
        const text = printed[i];
        const serial = text.match(/Serial Number:(?: \d+ \(0x([0-9a-f]+)\)|\s+([0-9a-f:]+))/)!;
        const hex = (serial[1] ?? serial[2].replace(/:/g, '')).toUpperCase().replace(/^(00)+(?=.)/, '');
        expect(hex.padStart(2, '0')).toBe(serialToHex(profile.serialNumber));
        const date = (name: string) => Date.parse(text.match(new RegExp(`${name}\\s*: (.+)`))![1]);
        expect(date('Not Before')).toBe(profile.notBefore.getTime());
        expect(date('Not After')).toBe(profile.notAfter.getTime());
        const sanLine = text.match(/X509v3 Subject Alternative Name:\s*\n\s*(.+)/)?.[1] ?? '';
        expect([...sanLine.matchAll(/DNS:([^,\s]+)/g)].map((m) => m[1])).toEqual(profile.dnsNames);
      });
    });
  });
});
