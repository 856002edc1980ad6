import { KeyObject, type webcrypto } from 'node:crypto';
import { CaError, ErrorCode, KeyAlgorithm, MAX_CSR_PEM_LENGTH } from '@ca/contracts';
import { DEFAULT_DEPLOYMENT_KEY_ALGORITHM, keyAlgorithmsOf } from '@ca/domain';
import { PkiFormatError, importLeafPublicKey, parseCertificationRequest } from '@ca/pki';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// An RSA-4096 SubjectPublicKeyInfo is 550 octets; anything much larger is not one this CA certifies.
const MAX_SPKI_OCTETS = 1024;
// The DER of the largest csrPem the gateway lets through.
const MAX_CSR_OCTETS = (MAX_CSR_PEM_LENGTH * 3) / 4;

/** The key a certificate is made for, its algorithm, and whether it came from the caller's CSR. */
export interface SubjectKey {
  publicKey: webcrypto.CryptoKey;
  algorithm: string;
  fromCsr: boolean;
}

const invalid = (message: string) => CaError.validation([{ field: 'subjectPublicKey', message }]);
const csrError = (code: ErrorCode, message: string) =>
  new CaError(code, message, [{ field: 'csrPem', message }]);

/**
 * The public key a command asks a certificate for (docs/api.md#key-algorithms):
 * - `spki`: the DER SubjectPublicKeyInfo of a key the gateway made, of an allowed leaf algorithm
 *   (P-256, P-384, RSA 3072/4096, and RSA-2048 where it is the deployment's key algorithm);
 *   WebCrypto's import checks it, point on the curve included. Anything else is VALIDATION_FAILED.
 * - `pkcs10`: the caller's CSR (docs/api.md#csr-issuance): well-formed (CSR_INVALID), a key of an
 *   allowed type (CSR_KEY_NOT_ALLOWED) and a self-signature that verifies with that key
 *   (CSR_SIGNATURE_INVALID, RFC 2986 section 3). Only its key is taken.
 */
export async function importSubjectPublicKey(
  value: unknown,
  deploymentKeyAlgorithm: KeyAlgorithm = DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
): Promise<SubjectKey> {
  const allowed = keyAlgorithmsOf(deploymentKeyAlgorithm);
  const key = value as { format?: unknown; der?: unknown } | null | undefined;
  if (typeof key !== 'object' || key === null || Array.isArray(key)) {
    throw invalid('must be an object { format: "spki" | "pkcs10", der: <base64> }');
  }
  if (key.format === 'pkcs10') return { ...(await keyOfCsr(key.der, allowed)), fromCsr: true };
  if (key.format !== 'spki') throw invalid('format must be "spki" or "pkcs10"');
  const der = decodeBase64(key.der, MAX_SPKI_OCTETS);
  if (!der) throw invalid('der must be the base64 of a DER SubjectPublicKeyInfo');
  try {
    const { publicKey, algorithm } = await importLeafPublicKey(der, allowed);
    return { publicKey, algorithm, fromCsr: false };
  } catch {
    throw invalid(`der must be the SubjectPublicKeyInfo of a ${allowed.join(', ')} key`);
  }
}

async function keyOfCsr(
  value: unknown,
  allowed: readonly string[],
): Promise<{ publicKey: webcrypto.CryptoKey; algorithm: string }> {
  const der = decodeBase64(value, MAX_CSR_OCTETS);
  if (!der) throw csrError(ErrorCode.CsrInvalid, 'is not a PKCS#10 certificate request of at most 16 KiB');
  let request;
  try {
    request = parseCertificationRequest(der);
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw error;
    throw csrError(ErrorCode.CsrInvalid, `is not a valid PKCS#10 certificate request (${error.message})`);
  }
  if (!allowed.includes(request.keyAlgorithm)) throw csrKeyNotAllowed(request.keyAlgorithm, allowed);
  // The key is made once, for the certificate and for the signature's check (each making costs
  // more than the verification); a key that cannot be made is checked as before by the request.
  const imported = await importLeafPublicKey(request.subjectPublicKeyInfo, allowed).catch(() => undefined);
  if (!(await request.verifySignature(imported && KeyObject.from(imported.publicKey)))) {
    throw csrError(
      ErrorCode.CsrSignatureInvalid,
      'has a signature that does not verify with its own public key (RFC 2986 section 3)',
    );
  }
  if (!imported) throw csrError(ErrorCode.CsrInvalid, 'has a public key that is not a valid key of its type');
  return imported;
}

/** CSR_KEY_NOT_ALLOWED: the request's key is not one this CA certifies (here). */
export function csrKeyNotAllowed(keyAlgorithm: string, allowed: readonly string[]): CaError {
  return csrError(
    ErrorCode.CsrKeyNotAllowed,
    `has a ${keyAlgorithm} key; this CA certifies ${allowed.join(', ')} keys`,
  );
}

/**
 * docs/api.md#csr-issuance: an RSA-2048 key (only accepted at all where it is the deployment's key
 * algorithm) is certified by an RSA CA only, the tenants that took the deployment's RSA choice.
 */
export function assertCsrKeyFitsCa(subjectKey: SubjectKey, caKeyAlgorithm: string): void {
  if (
    !subjectKey.fromCsr ||
    subjectKey.algorithm !== KeyAlgorithm.Rsa2048 ||
    caKeyAlgorithm.startsWith('RSA')
  )
    return;
  throw csrKeyNotAllowed(KeyAlgorithm.Rsa2048, keyAlgorithmsOf(DEFAULT_DEPLOYMENT_KEY_ALGORITHM));
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
