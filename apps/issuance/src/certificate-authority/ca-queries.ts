import { X509Certificate } from 'node:crypto';
import { assertCommandFields, CaSummary, KeyAlgorithm, TenantCommand } from '@ca/contracts';
import { derToPem } from '@ca/pki';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from './certificate-authority.entity';

/** Custody's algorithm names, as docs/api.md#key-algorithms names them. */
const KEY_ALGORITHM: Record<string, KeyAlgorithm> = {
  'ECDSA-P256': 'P-256',
  'ECDSA-P384': 'P-384',
  'RSA-3072': 'RSA-3072',
  'RSA-4096': 'RSA-4096',
};

/** docs/api.md#list-the-cas: a tenant's CAs, root first. */
export class CaQueries {
  constructor(private readonly dataSource: DataSource) {}

  async list(query: TenantCommand): Promise<{ cas: CaSummary[] }> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const rows = await this.dataSource
      .getRepository(CertificateAuthorityEntity)
      .find({ where: { tenantId: query.tenantId }, order: { createdAt: 'ASC' } });
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
        keyAlgorithm: KEY_ALGORITHM[row.keyAlgorithm] ?? 'P-256',
        state: row.revokedAt ? 'revoked' : row.notAfter.getTime() <= now ? 'expired' : 'active',
        certificatePem: derToPem(new Uint8Array(row.certificateDer)),
      }));
    return { cas };
  }
}
