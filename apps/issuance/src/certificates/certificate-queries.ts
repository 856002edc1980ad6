import {
  CertificateDetail,
  CertificateQuery,
  CertificateSummary,
  ExpiringCertificateSummary,
  ExpiringCertificatesQuery,
  ListCertificatesQuery,
  assertCommandFields,
} from '@ca/contracts';
import { derToPem, renewalWindow } from '@ca/pki';
import type { IssuanceTables } from '../issuance-database.store';
import { chainOf } from '../certificate-authority/cross-chain';
import { daysUntilExpiration, statusOf } from './certificate-lifecycle';
import { findTenantCertificate } from './certificate.repository';
import { expiringSummary, expiringWindow } from './expiring-certificates';

/** docs/api.md#list-certificates, docs/api.md#get-a-certificate, docs/api.md#expiring-certificates: reads of the tenant's certificates, straight from the owning schema. */
export class CertificateQueries {
  constructor(
    private readonly tables: Pick<IssuanceTables, 'certificates' | 'cas' | 'expiringCertificates'>,
  ) {}

  async get(query: CertificateQuery): Promise<CertificateDetail> {
    assertCommandFields(query, { tenantId: 'uuid', certificateId: 'uuid' });
    const c = await findTenantCertificate(this.tables.certificates, query.tenantId, query.certificateId);
    const now = new Date();
    const window = renewalWindow({ ...c, serialNumberHex: c.serialNumber });
    const successorId = await this.tables.certificates.newestSuccessor(c.id);
    return {
      certificateId: c.id,
      tenantId: c.tenantId,
      clientId: c.clientId,
      commonName: c.commonName,
      serialNumber: c.serialNumber,
      certificatePem: derToPem(new Uint8Array(c.certificateDer)),
      chainPem: await this.chainPemOf(c.caId),
      status: statusOf(c, now),
      issuedAt: c.issuedAt.toISOString(),
      expiresAt: c.notAfter.toISOString(),
      ...(c.revokedAt
        ? { revokedAt: c.revokedAt.toISOString(), revocationReason: c.revocationReason ?? '' }
        : {}),
      daysUntilExpiration: daysUntilExpiration(c.notAfter, now),
      renewalWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
      ...(successorId ? { successorId } : {}),
    };
  }

  /**
   * docs/api.md#chains: the certificate's issuer when that is an issuing CA, with the intermediates
   * up to a corporate root or the cross certificates of a renewed root (cross-chain.ts), else ''.
   */
  private async chainPemOf(caId: string): Promise<string> {
    const issuing = await this.tables.cas.issuingChainStart(caId);
    if (!issuing) return '';
    const chain = await chainOf(this.tables.cas, { role: 'issuing', ...issuing });
    return chain.map((der) => derToPem(new Uint8Array(der))).join('');
  }

  /**
   * Newest first (ties by id, newest order too: the index of the inventory's keyset pages serves
   * it backwards); only summary columns are read (no DER), in one query.
   */
  async list(query: ListCertificatesQuery): Promise<{ certificates: CertificateSummary[] }> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const rows = await this.tables.certificates.summariesOf(query.tenantId);
    const now = new Date();
    return {
      certificates: rows.map((r) => ({
        certificateId: r.id,
        clientId: r.client_id,
        commonName: r.common_name,
        serialNumber: r.serial_number,
        status: statusOf({ revokedAt: r.revoked_at, notAfter: r.not_after }, now),
        issuedAt: r.issued_at.toISOString(),
        expiresAt: r.not_after.toISOString(),
        daysUntilExpiration: daysUntilExpiration(r.not_after, now),
      })),
    };
  }

  /** docs/api.md#expiring-certificates: the tenant's expiring certificates, soonest first. */
  async expiring(query: ExpiringCertificatesQuery): Promise<{ certificates: ExpiringCertificateSummary[] }> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const { from, to } = expiringWindow(query.days);
    const rows = await this.tables.expiringCertificates.ofTenant(query.tenantId, from, to);
    return { certificates: rows.map((r) => expiringSummary(r, from)) };
  }
}
