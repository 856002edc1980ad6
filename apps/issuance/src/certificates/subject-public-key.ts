import type { webcrypto } from 'node:crypto';
import { CaError } from '@ca/contracts';
import { importEcPublicKey } from '@ca/pki';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// A P-256 SubjectPublicKeyInfo is 91 octets (uncompressed point); anything much larger is not one.
const MAX_SPKI_OCTETS = 256;

const invalid = (message: string) => CaError.validation([{ field: 'subjectPublicKey', message }]);

/**
 * The public key a command asks a certificate for. Only `spki` today: the DER SubjectPublicKeyInfo
 * of a P-256 key (RFC 5480 section 2; the only leaf key this CA certifies), which WebCrypto's
 * import checks, point on the curve included. Anything else is VALIDATION_FAILED (400).
 */
export async function importSubjectPublicKey(value: unknown): Promise<webcrypto.CryptoKey> {
  const key = value as { format?: unknown; der?: unknown } | null | undefined;
  if (typeof key !== 'object' || key === null || Array.isArray(key)) {
    throw invalid('must be an object { format: "spki", der: <base64> }');
  }
  if (key.format !== 'spki') throw invalid('format must be "spki"');
  const der = key.der;
  if (
    typeof der !== 'string' ||
    der.length % 4 !== 0 ||
    der.length > (MAX_SPKI_OCTETS * 4) / 3 + 4 ||
    !BASE64.test(der)
  ) {
    throw invalid('der must be the base64 of a DER SubjectPublicKeyInfo');
  }
  try {
    return await importEcPublicKey(Buffer.from(der, 'base64'));
  } catch {
    throw invalid('der must be the SubjectPublicKeyInfo of a P-256 (prime256v1) key');
  }
}
