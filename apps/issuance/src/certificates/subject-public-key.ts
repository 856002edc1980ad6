import type { webcrypto } from 'node:crypto';
import { ALLOWED_CSR_KEY_ALGORITHMS, CaError, ErrorCode, MAX_CSR_PEM_LENGTH } from '@ca/contracts';
import { PkiFormatError, importEcPublicKey, parseCertificationRequest } from '@ca/pki';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// A P-256 SubjectPublicKeyInfo is 91 octets (uncompressed point); anything much larger is not one.
const MAX_SPKI_OCTETS = 256;
// The DER of the largest csrPem the gateway lets through.
const MAX_CSR_OCTETS = (MAX_CSR_PEM_LENGTH * 3) / 4;

/** The key a certificate is made for, and whether it came from the caller's CSR. */
export interface SubjectKey {
  publicKey: webcrypto.CryptoKey;
  fromCsr: boolean;
}

const invalid = (message: string) => CaError.validation([{ field: 'subjectPublicKey', message }]);
const csrError = (code: ErrorCode, message: string) =>
  new CaError(code, message, [{ field: 'csrPem', message }]);

/**
 * The public key a command asks a certificate for (docs/api.md#keys-and-serial-numbers):
 * - `spki`: the DER SubjectPublicKeyInfo of a P-256 key (RFC 5480 section 2) the gateway made;
 *   WebCrypto's import checks it, point on the curve included. Anything else is VALIDATION_FAILED.
 * - `pkcs10`: the caller's CSR (docs/api.md#csr-issuance): well-formed (CSR_INVALID), a key of an
 *   allowed type (CSR_KEY_NOT_ALLOWED) and a self-signature that verifies with that key
 *   (CSR_SIGNATURE_INVALID, RFC 2986 section 3). Only its key is taken.
 */
export async function importSubjectPublicKey(value: unknown): Promise<SubjectKey> {
  const key = value as { format?: unknown; der?: unknown } | null | undefined;
  if (typeof key !== 'object' || key === null || Array.isArray(key)) {
    throw invalid('must be an object { format: "spki" | "pkcs10", der: <base64> }');
  }
  if (key.format === 'pkcs10') return { publicKey: await keyOfCsr(key.der), fromCsr: true };
  if (key.format !== 'spki') throw invalid('format must be "spki" or "pkcs10"');
  const der = decodeBase64(key.der, MAX_SPKI_OCTETS);
  if (!der) throw invalid('der must be the base64 of a DER SubjectPublicKeyInfo');
  try {
    return { publicKey: await importEcPublicKey(der), fromCsr: false };
  } catch {
    throw invalid('der must be the SubjectPublicKeyInfo of a P-256 (prime256v1) key');
  }
}

async function keyOfCsr(value: unknown): Promise<webcrypto.CryptoKey> {
  const der = decodeBase64(value, MAX_CSR_OCTETS);
  if (!der) throw csrError(ErrorCode.CsrInvalid, 'is not a PKCS#10 certificate request of at most 16 KiB');
  let request;
  try {
    request = parseCertificationRequest(der);
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw error;
    throw csrError(ErrorCode.CsrInvalid, `is not a valid PKCS#10 certificate request (${error.message})`);
  }
  if (!ALLOWED_CSR_KEY_ALGORITHMS.includes(request.keyAlgorithm)) {
    throw csrError(
      ErrorCode.CsrKeyNotAllowed,
      `has a ${request.keyAlgorithm} key; this CA certifies ${ALLOWED_CSR_KEY_ALGORITHMS.join(', ')} keys`,
    );
  }
  if (!(await request.verifySignature())) {
    throw csrError(
      ErrorCode.CsrSignatureInvalid,
      'has a signature that does not verify with its own public key (RFC 2986 section 3)',
    );
  }
  try {
    return await importEcPublicKey(request.subjectPublicKeyInfo);
  } catch {
    throw csrError(ErrorCode.CsrInvalid, 'has a public key that is not a valid point of its curve');
  }
}

/** Strict base64 of at most `maxOctets` octets, or undefined. */
function decodeBase64(value: unknown, maxOctets: number): Uint8Array | undefined {
  if (
    typeof value !== 'string' ||
    value.length % 4 !== 0 ||
    value.length > (maxOctets * 4) / 3 + 4 ||
    !BASE64.test(value)
  ) {
    return undefined;
  }
  return new Uint8Array(Buffer.from(value, 'base64'));
}
