import { KeyObject, verify as verifySignature } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pkiCrypto } from './crypto-engine';
import { DerElement, DerReader, decodeObjectIdentifier, readSingleElement } from './der-reader';
import { publicKeyObjectOfSpki } from './leaf-public-key';
import { PkiFormatError } from './pki-format.error';

/**
 * The key of a CSR, named as the API names key algorithms: `P-256`, `P-384`, `P-521`,
 * `RSA-<modulus bits>`, or `other (<algorithm OID>)` for anything else (Ed25519, secp256k1, …).
 */
export type CsrKeyAlgorithm = string;

/** What a PKCS#10 CertificationRequest (RFC 2986 section 4) offers to be certified. */
export interface CertificationRequestInfo {
  keyAlgorithm: CsrKeyAlgorithm;
  /** DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7), exactly as the CSR carries it. */
  subjectPublicKeyInfo: Uint8Array;
  /**
   * Whether the signature over certificationRequestInfo verifies with the CSR's own key (RFC 2986
   * section 3, proof of possession). False, never a throw, for an algorithm it cannot verify.
   * `publicKey`: that key already made from `subjectPublicKeyInfo` (making one costs more than the
   * verification itself), instead of making it again.
   */
  verifySignature(publicKey?: KeyObject): Promise<boolean>;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OBJECT_IDENTIFIER = 0x06;
const NULL = 0x05;
const ATTRIBUTES = 0xa0;

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const NAMED_CURVES: Record<string, string> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

/**
 * Signature algorithms verified natively (node:crypto, OpenSSL), by OID: the digest and the key
 * algorithm that must have made it. Their parameters are absent (ECDSA, RFC 5758 3.2) or NULL
 * (RSA, RFC 4055 5); anything else there does not verify. Any other algorithm (RSASSA-PSS with
 * its parameters, SHA-1) is verified by PKI.js as before.
 */
const NATIVE_SIGNATURES: Record<string, { digest: string; keyOid: string }> = {
  '1.2.840.10045.4.3.2': { digest: 'sha256', keyOid: EC_PUBLIC_KEY },
  '1.2.840.10045.4.3.3': { digest: 'sha384', keyOid: EC_PUBLIC_KEY },
  '1.2.840.10045.4.3.4': { digest: 'sha512', keyOid: EC_PUBLIC_KEY },
  '1.2.840.113549.1.1.11': { digest: 'sha256', keyOid: RSA_ENCRYPTION },
  '1.2.840.113549.1.1.12': { digest: 'sha384', keyOid: RSA_ENCRYPTION },
  '1.2.840.113549.1.1.13': { digest: 'sha512', keyOid: RSA_ENCRYPTION },
};

/**
 * Reads a DER CertificationRequest (RFC 2986 section 4.2) in one pass over its octets:
 *
 *     CertificationRequest ::= SEQUENCE { certificationRequestInfo CertificationRequestInfo,
 *                                         signatureAlgorithm AlgorithmIdentifier,
 *                                         signature BIT STRING }
 *     CertificationRequestInfo ::= SEQUENCE { version INTEGER { v1(0) }, subject Name,
 *                                             subjectPKInfo SubjectPublicKeyInfo,
 *                                             attributes [0] Attributes }
 *
 * Nothing may follow the request; the version must be v1; the encoding must be DER (the signature
 * is over the DER of certificationRequestInfo). Subject and attributes (a requested extension
 * list among them) are not read: the API decides a certificate's names, never the CSR. Throws
 * `PkiFormatError` for anything that is not such a request. The signature is verified by
 * node:crypto (OpenSSL) for ECDSA and RSA PKCS #1 v1.5 with SHA-2, by PKI.js for anything else.
 */
export function parseCertificationRequest(der: Uint8Array): CertificationRequestInfo {
  const outer = readSingleElement(der, 'CertificationRequest', SEQUENCE);
  const request = new DerReader(der, outer.contentStart, outer.end);
  const info = request.read('certificationRequestInfo', SEQUENCE);
  const signatureAlgorithm = request.read('signatureAlgorithm', SEQUENCE);
  const signature = request.read('signature', BIT_STRING);
  request.expectEnd('CertificationRequest');

  const fields = request.inside(info);
  const version = fields.read('version', INTEGER);
  if (version.end - version.contentStart !== 1 || der[version.contentStart] !== 0)
    throw new PkiFormatError('CertificationRequest: version is not v1');
  fields.read('subject', SEQUENCE);
  const spki = fields.read('subjectPKInfo', SEQUENCE);
  fields.readOptional('attributes', ATTRIBUTES);
  fields.expectEnd('certificationRequestInfo');

  const key = readSpki(fields, spki);
  const algorithm = readAlgorithmIdentifier(request, signatureAlgorithm, 'signatureAlgorithm');
  const signatureBits = request.contents(signature);
  if (signatureBits.length === 0 || signatureBits[0] !== 0)
    throw new PkiFormatError('signature: not a whole number of octets');

  const subjectPublicKeyInfo = new Uint8Array(request.encoding(spki));
  const signed = new Uint8Array(request.encoding(info));
  const signatureOctets = new Uint8Array(signatureBits.subarray(1));
  return {
    keyAlgorithm: key.algorithm,
    subjectPublicKeyInfo,
    verifySignature: async (made?: KeyObject) => {
      const native = NATIVE_SIGNATURES[algorithm.oid];
      if (!native) return verifyWithPkijs(der);
      if (native.keyOid !== key.oid || !algorithm.plainParams) return false;
      let publicKey: KeyObject;
      try {
        publicKey = made ?? publicKeyObjectOfSpki(subjectPublicKeyInfo);
      } catch {
        return false;
      }
      try {
        return verifySignature(native.digest, signed, publicKey, signatureOctets);
      } catch {
        return false;
      }
    },
  };
}

/** The key's algorithm OID and its API name; the RSA modulus and EC curve are read from the DER. */
function readSpki(parent: DerReader, spki: DerElement): { oid: string; algorithm: CsrKeyAlgorithm } {
  const reader = parent.inside(spki);
  const algorithmId = reader.read('subjectPKInfo.algorithm', SEQUENCE);
  const publicKey = reader.read('subjectPublicKey', BIT_STRING);
  reader.expectEnd('subjectPKInfo');
  const inner = reader.inside(algorithmId);
  const oid = decodeObjectIdentifier(inner.contents(inner.read('algorithm', OBJECT_IDENTIFIER)));
  if (oid === EC_PUBLIC_KEY) {
    const curve =
      inner.peekTag() === OBJECT_IDENTIFIER
        ? decodeObjectIdentifier(inner.contents(inner.read('namedCurve', OBJECT_IDENTIFIER)))
        : '';
    return { oid, algorithm: NAMED_CURVES[curve] ?? `other (${oid} ${curve || 'without a named curve'})` };
  }
  if (oid === RSA_ENCRYPTION) {
    const bits = reader.contents(publicKey);
    if (bits.length === 0 || bits[0] !== 0) throw new PkiFormatError('CertificationRequest: bad RSA key');
    try {
      const rsa = new DerReader(bits, 1);
      const sequence = rsa.read('RSAPublicKey', SEQUENCE);
      rsa.expectEnd('RSAPublicKey');
      const modulus = rsa.inside(sequence).read('modulus', INTEGER);
      return { oid, algorithm: `RSA-${bitLength(rsa.contents(modulus))}` };
    } catch {
      throw new PkiFormatError('CertificationRequest: bad RSA key');
    }
  }
  return { oid, algorithm: `other (${oid})` };
}

function readAlgorithmIdentifier(
  parent: DerReader,
  element: DerElement,
  what: string,
): { oid: string; plainParams: boolean } {
  const reader = parent.inside(element);
  const oid = decodeObjectIdentifier(reader.contents(reader.read(`${what}.algorithm`, OBJECT_IDENTIFIER)));
  if (reader.atEnd) return { oid, plainParams: true };
  const params = reader.read(`${what}.parameters`);
  reader.expectEnd(what);
  return { oid, plainParams: params.tag === NULL && params.end === params.contentStart };
}

/** Signature algorithms node:crypto is not given here (RSASSA-PSS, SHA-1, …): PKI.js over WebCrypto. */
async function verifyWithPkijs(der: Uint8Array): Promise<boolean> {
  try {
    const asn1 = asn1js.fromBER(der);
    const request = new pkijs.CertificationRequest({ schema: asn1.result });
    return await request.verify(pkiCrypto());
  } catch {
    return false;
  }
}

/** Bits of an unsigned big-endian integer, leading zero octets (DER's sign octet) not counted. */
function bitLength(value: Uint8Array): number {
  let start = 0;
  while (start < value.length && value[start] === 0) start++;
  if (start === value.length) return 0;
  return (value.length - start - 1) * 8 + (32 - Math.clz32(value[start]));
}
