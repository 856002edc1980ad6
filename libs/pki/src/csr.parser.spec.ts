import type { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pkiCrypto } from './crypto-engine';
import { parseCertificationRequest } from './csr.parser';
import { generateEcKeyPair } from './ec-key-pair';
import { PkiFormatError } from './pki-format.error';
import { buildTestCsr, describeIfOpenssl, opensslCsr, withBrokenSignature } from './testing';

const spkiOf = (publicKey: webcrypto.CryptoKey) => globalThis.crypto.subtle.exportKey('spki', publicKey);

describe('parseCertificationRequest', () => {
  it('reads the key of a P-256 request built with PKI.js and verifies its signature', async () => {
    const keys = await generateEcKeyPair(false);
    const info = parseCertificationRequest(await buildTestCsr(keys));
    expect(info.keyAlgorithm).toBe('P-256');
    expect(Buffer.from(info.subjectPublicKeyInfo)).toEqual(Buffer.from(await spkiOf(keys.publicKey)));
    expect(await info.verifySignature()).toBe(true);
  });

  it('parses a request whose signature was altered, and reports that it does not verify', async () => {
    const der = withBrokenSignature(await buildTestCsr(await generateEcKeyPair(false)));
    expect(await parseCertificationRequest(der).verifySignature()).toBe(false);
  });

  it('does not verify a request whose subject was changed after signing (the signature covers the DER of the info)', async () => {
    const der = await buildTestCsr(await generateEcKeyPair(false), 'alice');
    const at = Buffer.from(der).indexOf('alice');
    const changed = new Uint8Array(der);
    changed[at] = 'm'.charCodeAt(0); // "mlice": same length, still well-formed
    const info = parseCertificationRequest(changed);
    expect(info.keyAlgorithm).toBe('P-256');
    expect(await info.verifySignature()).toBe(false);
  });

  it('does not verify an ECDSA signature once its algorithm names another digest', async () => {
    const der = await buildTestCsr(await generateEcKeyPair(false));
    // The signatureAlgorithm ecdsa-with-SHA256 (06 08 2A 86 48 CE 3D 04 03 02) made ecdsa-with-SHA384.
    const oid = Buffer.from('06082a8648ce3d040302', 'hex');
    const at = Buffer.from(der).lastIndexOf(oid);
    const renamed = new Uint8Array(der);
    renamed[at + oid.length - 1] = 0x03; // ecdsa-with-SHA384: the digest no longer matches
    expect(await parseCertificationRequest(renamed).verifySignature()).toBe(false);
  });

  it('refuses what is not a request: garbage, a truncated request, trailing data, a certificate', async () => {
    const der = await buildTestCsr(await generateEcKeyPair(false));
    expect(() => parseCertificationRequest(new Uint8Array([1, 2, 3]))).toThrow(PkiFormatError);
    expect(() => parseCertificationRequest(der.slice(0, der.length - 5))).toThrow(PkiFormatError);
    expect(() => parseCertificationRequest(new Uint8Array([...der, 0]))).toThrow(PkiFormatError);
    expect(() => parseCertificationRequest(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00]))).toThrow(
      PkiFormatError,
    );
  });
});

describeIfOpenssl('requests made by the openssl CLI', () => {
  const csrOf = (newkey: string[]) => opensslCsr(newkey);

  it.each([
    ['P-256', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']],
    ['P-384', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']],
    ['RSA-2048', ['-newkey', 'rsa:2048']],
  ])('names a %s key and verifies its signature', async (name, newkey) => {
    const info = parseCertificationRequest(csrOf(newkey));
    expect(info.keyAlgorithm).toBe(name);
    expect(await info.verifySignature()).toBe(true);
  });

  it.each([
    ['RSA-PSS', ['-newkey', 'rsa:2048', '-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32']],
    ['SHA-1', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-sha1']],
    ['SHA-512', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-sha512']],
    ['RSA SHA-384', ['-newkey', 'rsa:2048', '-sha384']],
  ])('agrees with PKI.js on a %s request, intact and with a broken signature', async (_, newkey) => {
    const der = csrOf(newkey);
    const pkijsVerdict = async (bytes: Uint8Array) =>
      new pkijs.CertificationRequest({ schema: asn1js.fromBER(bytes).result })
        .verify(pkiCrypto())
        .catch(() => false);
    expect(await parseCertificationRequest(der).verifySignature()).toBe(await pkijsVerdict(der));
    expect(await parseCertificationRequest(der).verifySignature()).toBe(true);
    const broken = withBrokenSignature(der);
    expect(await parseCertificationRequest(broken).verifySignature()).toBe(false);
  });

  it('names an Ed25519 key as another algorithm and does not throw verifying it', async () => {
    const info = parseCertificationRequest(csrOf(['-newkey', 'ed25519']));
    expect(info.keyAlgorithm).toBe('other (1.3.101.112)');
    await expect(info.verifySignature()).resolves.toEqual(expect.any(Boolean));
  });
});
