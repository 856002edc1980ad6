import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pkiCrypto } from './crypto-engine';
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
   * section 3, proof of possession). False, never a throw, for an algorithm WebCrypto cannot verify.
   */
  verifySignature(): Promise<boolean>;
}

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const NAMED_CURVES: Record<string, string> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

/**
 * Reads a DER CertificationRequest (RFC 2986 section 4.2):
 *
 *     CertificationRequest ::= SEQUENCE { certificationRequestInfo CertificationRequestInfo,
 *                                         signatureAlgorithm AlgorithmIdentifier,
 *                                         signature BIT STRING }
 *     CertificationRequestInfo ::= SEQUENCE { version INTEGER { v1(0) }, subject Name,
 *                                             subjectPKInfo SubjectPublicKeyInfo,
 *                                             attributes [0] Attributes }
 *
 * Nothing may follow the request; the version must be v1. Subject and attributes (a requested
 * extension list among them) are not read: the API decides a certificate's names, never the CSR.
 * Throws `PkiFormatError` for anything that is not such a request.
 */
export function parseCertificationRequest(der: Uint8Array): CertificationRequestInfo {
  const asn1 = asn1js.fromBER(der);
  if (asn1.offset === -1) throw new PkiFormatError('CertificationRequest: not DER');
  if (asn1.offset !== der.byteLength)
    throw new PkiFormatError('CertificationRequest: data after the request');
  let request: pkijs.CertificationRequest;
  try {
    request = new pkijs.CertificationRequest({ schema: asn1.result });
  } catch (error) {
    throw new PkiFormatError(`CertificationRequest: ${(error as Error).message}`);
  }
  if (request.version !== 0) throw new PkiFormatError('CertificationRequest: version is not v1');
  const spki = request.subjectPublicKeyInfo;
  return {
    keyAlgorithm: keyAlgorithmOf(spki),
    subjectPublicKeyInfo: new Uint8Array(spki.toSchema().toBER(false)),
    verifySignature: async () => {
      try {
        return await request.verify(pkiCrypto());
      } catch {
        return false;
      }
    },
  };
}

function keyAlgorithmOf(spki: pkijs.PublicKeyInfo): CsrKeyAlgorithm {
  const oid = spki.algorithm.algorithmId;
  if (oid === EC_PUBLIC_KEY) {
    const params = spki.algorithm.algorithmParams;
    const curve = params instanceof asn1js.ObjectIdentifier ? params.valueBlock.toString() : '';
    return NAMED_CURVES[curve] ?? `other (${oid} ${curve || 'without a named curve'})`;
  }
  if (oid === RSA_ENCRYPTION) {
    const key = spki.parsedKey;
    if (!(key instanceof pkijs.RSAPublicKey)) throw new PkiFormatError('CertificationRequest: bad RSA key');
    return `RSA-${bitLength(new Uint8Array(key.modulus.valueBlock.valueHexView))}`;
  }
  return `other (${oid})`;
}

/** Bits of an unsigned big-endian integer, leading zero octets (DER's sign octet) not counted. */
function bitLength(value: Uint8Array): number {
  let start = 0;
  while (start < value.length && value[start] === 0) start++;
  if (start === value.length) return 0;
  return (value.length - start - 1) * 8 + (32 - Math.clz32(value[start]));
}
