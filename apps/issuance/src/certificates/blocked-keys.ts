import { KeyObject, X509Certificate, createHash, type webcrypto } from 'node:crypto';
import { CaError, ErrorCode, RevocationReasonCodes } from '@ca/contracts';
import { spkiOfPublicKey } from '@ca/pki';
import type { BlockedKeyStore } from './blocked-key.store';
import { SubjectKey } from './subject-public-key';

/**
 * Keys known to be compromised (docs/api.md#revoke-a-certificate): once a tenant revokes a
 * certificate for keyCompromise, no certificate of that tenant certifies its key again. Keys are
 * compared by SHA-256 of their SubjectPublicKeyInfo as Node encodes it, so one key sent in another
 * encoding (a compressed EC point in a CSR) is still the same key.
 */
export function spkiSha256OfCertificate(certificateDer: Buffer): Buffer {
  return spkiSha256(new X509Certificate(certificateDer).publicKey);
}

function spkiSha256(key: KeyObject): Buffer {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest();
}

/** In the revocation's transaction: a keyCompromise revocation blocks the certificate's key. */
export async function blockKeyIfCompromised(
  blockedKeys: BlockedKeyStore,
  certificate: { id: string; tenantId: string; certificateDer: Buffer },
  reasonCode: number,
): Promise<void> {
  if (reasonCode !== RevocationReasonCodes.KeyCompromise) return;
  await blockedKeys.block(
    certificate.tenantId,
    spkiSha256OfCertificate(certificate.certificateDer),
    certificate.id,
  );
}

/** The hash a subject key is blocked by (spkiSha256), for MintFactsStore.factsFor. */
export async function subjectKeySha256(subjectKey: SubjectKey): Promise<Buffer> {
  // As imported when that is the canonical encoding (no export: it costs a key's parse).
  const spki = await spkiOfPublicKey(subjectKey.publicKey as webcrypto.CryptoKey);
  return createHash('sha256').update(spki).digest();
}

/**
 * 400 CSR_KEY_COMPROMISED for a key the tenant revoked a certificate of for keyCompromise. Every
 * key is looked up (MintFacts.keyBlocked): ACME finalize sends its CSR's key as a bare
 * SubjectPublicKeyInfo, so a caller's key cannot be told from one the gateway made.
 */
export function assertKeyNotBlocked(keyBlocked: boolean): void {
  if (!keyBlocked) return;
  const message =
    'has the key of a certificate revoked for keyCompromise: that key is certified no more; make a new key and a new CSR';
  throw new CaError(ErrorCode.CsrKeyCompromised, `The CSR ${message}.`, [{ field: 'csrPem', message }]);
}
