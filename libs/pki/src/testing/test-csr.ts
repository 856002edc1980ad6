import type { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pkiCrypto } from '../crypto-engine';

/**
 * A PKCS#10 request (RFC 2986) for `keys`, built with PKI.js as a Node client would: subject CN
 * only, signed with the key's own private half (SHA-256). For tests of CSR issuance.
 */
export async function buildTestCsr(
  keys: webcrypto.CryptoKeyPair,
  commonName = 'node-client',
): Promise<Uint8Array> {
  const csr = new pkijs.CertificationRequest();
  csr.version = 0;
  csr.subject.typesAndValues.push(
    new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: commonName }) }),
  );
  await csr.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto());
  await csr.sign(keys.privateKey, 'SHA-256', pkiCrypto());
  return new Uint8Array(csr.toSchema(true).toBER(false));
}

/** The same request with one bit of its signature flipped: well-formed, but it no longer verifies. */
export function withBrokenSignature(der: Uint8Array): Uint8Array {
  const broken = new Uint8Array(der);
  broken[broken.length - 1] ^= 0x01;
  return broken;
}
