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
import { DataSource } from 'typeorm';
import { sqlIssuanceTables } from '../issuance-database.store';
import { chainOf } from '../certificate-authority/cross-chain';
import { daysUntilExpiration, statusOf } from './certificate-lifecycle';
import { findTenantCertificate } from './certificate.repository';
import { EXPIRING_COLUMNS, ExpiringRow, expiringSummary, expiringWindow } from './expiring-certificates';

interface SummaryRow {
  id: string;
  tenant_id: string;
  client_id: string;
  common_name: string;
  serial_number: string;
  issued_at: Date;
  not_after: Date;
  revoked_at: Date | null;
}

const SUMMARY_COLUMNS =
  'id, tenant_id, client_id, common_name, serial_number, issued_at, not_after, revoked_at';

/** docs/api.md#list-certificates, docs/api.md#get-a-certificate, docs/api.md#expiring-certificates: reads of the tenant's certificates, straight from the owning schema. */
export class CertificateQueries {
  constructor(private readonly dataSource: DataSource) {}

  async get(query: CertificateQuery): Promise<CertificateDetail> {
    assertCommandFields(query, { tenantId: 'uuid', certificateId: 'uuid' });
    const c = await findTenantCertificate(
      sqlIssuanceTables(this.dataSource.manager).certificates,
      query.tenantId,
      query.certificateId,
    );
    const now = new Date();
    const window = renewalWindow({ ...c, serialNumberHex: c.serialNumber });
    const [successor]: { id: string }[] = await this.dataSource.query(
      'SELECT id FROM issuance.certificates WHERE renewed_from = $1 ORDER BY issued_at DESC LIMIT 1',
      [c.id],
    );
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
      ...(successor ? { successorId: successor.id } : {}),
    };
  }

  /**
   * docs/api.md#chains: the certificate's issuer when that is an issuing CA, with the intermediates
   * up to a corporate root or the cross certificates of a renewed root (cross-chain.ts), else ''.
   */
  private async chainPemOf(caId: string): Promise<string> {
    const rows: {
      certificate_der: Buffer;
      issuer_ca_id: string | null;
      external_intermediates_pem: string | null;
    }[] = await this.dataSource.query(
      `SELECT certificate_der, issuer_ca_id, external_intermediates_pem FROM issuance.certificate_authorities
        WHERE id = $1 AND role = 'issuing'`,
      [caId],
    );
    if (rows.length === 0) return '';
    const chain = await chainOf(sqlIssuanceTables(this.dataSource.manager).cas, {
      role: 'issuing',
      certificateDer: rows[0].certificate_der,
      issuerCaId: rows[0].issuer_ca_id,
      externalIntermediatesPem: rows[0].external_intermediates_pem,
    });
    return chain.map((der) => derToPem(new Uint8Array(der))).join('');
  }

  /**
   * Newest first (ties by id, newest order too: the index of the inventory's keyset pages serves
   * it backwards); only summary columns are read (no DER), in one query.
   */
  async list(query: ListCertificatesQuery): Promise<{ certificates: CertificateSummary[] }> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const rows: SummaryRow[] = await this.dataSource.query(
      `SELECT ${SUMMARY_COLUMNS} FROM issuance.certificates WHERE tenant_id = $1 ORDER BY issued_at DESC, id DESC`,
      [query.tenantId],
    );
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
    const rows: ExpiringRow[] = await this.dataSource.query(
      `SELECT ${EXPIRING_COLUMNS} FROM issuance.certificates
        WHERE tenant_id = $1 AND revoked_at IS NULL AND not_after > $2 AND not_after <= $3
        ORDER BY not_after, id`,
      [query.tenantId, from, to],
    );
    return { certificates: rows.map((r) => expiringSummary(r, from)) };
  }
}
