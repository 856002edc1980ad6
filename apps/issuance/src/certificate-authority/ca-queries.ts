import { X509Certificate } from 'node:crypto';
import { assertCommandFields, CaState, CaSummary, KeyAlgorithm, TenantCommand } from '@ca/contracts';
import { derToPem } from '@ca/pki';
import { CaStore } from './ca.store';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';
import { PendingCaStore } from './pending-ca.store';

/** Custody's algorithm names, as docs/api.md#key-algorithms names them. */
export const KEY_ALGORITHM: Record<string, KeyAlgorithm> = {
  'ECDSA-P256': 'P-256',
  'ECDSA-P384': 'P-384',
  'RSA-2048': 'RSA-2048',
  'RSA-3072': 'RSA-3072',
  'RSA-4096': 'RSA-4096',
};

/** docs/api.md#list-the-cas: a tenant's CAs, root first; a pending one (docs/api.md#external-root) last. */
export class CaQueries {
  constructor(
    private readonly cas: CaStore,
    private readonly pendingCas: PendingCaStore,
  ) {}

  async list(query: TenantCommand): Promise<{ cas: CaSummary[] }> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const rows = await this.cas.ofTenant(query.tenantId);
    const now = Date.now();
    const cas = rows
      .sort((a, b) => Number(a.role !== 'root') - Number(b.role !== 'root'))
      .map((row): CaSummary => ({
        caId: row.id,
        role: row.role,
        serialNumber: row.serialNumber,
        subject: new X509Certificate(row.certificateDer).subject.split('\n').reverse().join(', '),
        notBefore: row.notBefore.toISOString(),
        notAfter: row.notAfter.toISOString(),
        // A corporate root's key is named as read (e.g. EC-secp521r1) when it is none of ours.
        keyAlgorithm:
          KEY_ALGORITHM[row.keyAlgorithm] ??
          (row.keyCustody === EXTERNAL_KEY_CUSTODY ? (row.keyAlgorithm as KeyAlgorithm) : 'P-256'),
        state: stateOf(row, now),
        certificatePem: derToPem(new Uint8Array(row.certificateDer)),
        ...(row.keyCustody === EXTERNAL_KEY_CUSTODY ? { external: true as const } : {}),
        // docs/api.md#renew-the-root: the cross certificate is listed with the root it certifies.
        ...(row.crossCertificateDer
          ? { crossCertificatePem: derToPem(new Uint8Array(row.crossCertificateDer)) }
          : {}),
      }));
    const pending = await this.pendingCas.listOf(query.tenantId);
    for (const row of pending) {
      cas.push({
        caId: row.id,
        role: 'issuing',
        subject: `CN=${row.commonName}, O=${row.organization}, C=${row.country}`, // as the rows' subjects read
        keyAlgorithm: KEY_ALGORITHM[row.keyAlgorithm] ?? 'P-256',
        state: 'pending',
        csrPem: derToPem(new Uint8Array(row.csrDer), 'CERTIFICATE REQUEST'),
      });
    }
    return { cas };
  }
}

/** docs/api.md#list-the-cas: revoked, else expired, else retired (replaced by a newer issuing CA or root), else active. */
export function stateOf(
  row: Pick<CertificateAuthorityEntity, 'revokedAt' | 'notAfter' | 'retiredAt'>,
  now: number,
): CaState {
  if (row.revokedAt) return 'revoked';
  if (row.notAfter.getTime() <= now) return 'expired';
  return row.retiredAt ? 'retired' : 'active';
}
