import type { webcrypto } from 'node:crypto';
import { ALLOWED_LEAF_KEY_ALGORITHMS, CaError } from '@ca/contracts';
import { importLeafPublicKey } from '@ca/pki';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// An RSA-4096 SubjectPublicKeyInfo is 550 octets; anything much larger is not one this CA certifies.
const MAX_SPKI_OCTETS = 1024;

const invalid = (message: string) => CaError.validation([{ field: 'subjectPublicKey', message }]);

/**
 * The public key a command asks a certificate for. Only `spki` today: the DER SubjectPublicKeyInfo
 * of a key of docs/api.md#key-algorithms (P-256, P-384, RSA 3072/4096), which WebCrypto's import
 * checks, point on the curve included. Anything else (RSA-2048 say) is VALIDATION_FAILED (400).
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
    const { publicKey } = await importLeafPublicKey(Buffer.from(der, 'base64'), ALLOWED_LEAF_KEY_ALGORITHMS);
    return publicKey;
  } catch {
    throw invalid(`der must be the SubjectPublicKeyInfo of a ${ALLOWED_LEAF_KEY_ALGORITHMS.join(', ')} key`);
  }
}
