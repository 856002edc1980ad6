import { CertificateIssuedPayload, CertificateRevokedPayload, EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { OCSP_SCHEMA } from '../ocsp.schema';

export interface CertificateStatusRow {
  notAfter: Date;
  revokedAt: Date | null;
  reasonCode: number | null;
}

/**
 * The responder's own record of every certificate's status, fed by `certificate.issued` and
 * `certificate.revoked`. A revocation reaches OCSP answers as soon as this row changes (it does
 * not wait for the CRL): the response cache is keyed by these statuses.
 */
export class CertificateStatusProjection {
  constructor(private readonly dataSource: DataSource) {}

  async applyIssued(event: EventEnvelope<CertificateIssuedPayload>): Promise<void> {
    const { tenantId, serialNumber, notAfter } = event.payload;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO ocsp.certificate_status (tenant_id, serial_number, not_after) VALUES ($1, $2, $3)
         ON CONFLICT (tenant_id, serial_number) DO NOTHING`,
        [tenantId, serialNumber, notAfter],
      );
    });
  }

  async applyRevoked(event: EventEnvelope<CertificateRevokedPayload>): Promise<void> {
    const { tenantId, serialNumber, revokedAt, reasonCode } = event.payload;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      // Upsert: a revocation must be answered even if the issue event were ever missing.
      await manager.query(
        `INSERT INTO ocsp.certificate_status (tenant_id, serial_number, not_after, revoked_at, reason_code)
         VALUES ($1, $2, 'infinity', $3, $4)
         ON CONFLICT (tenant_id, serial_number) DO UPDATE SET revoked_at = EXCLUDED.revoked_at, reason_code = EXCLUDED.reason_code
         WHERE ocsp.certificate_status.revoked_at IS NULL`,
        [tenantId, serialNumber, revokedAt, reasonCode],
      );
    });
  }

  async find(tenantId: string, serialNumbers: string[]): Promise<Map<string, CertificateStatusRow>> {
    const rows: {
      serial_number: string;
      not_after: Date;
      revoked_at: Date | null;
      reason_code: number | null;
    }[] = await this.dataSource.query(
      `SELECT serial_number, not_after, revoked_at, reason_code FROM ocsp.certificate_status
          WHERE tenant_id = $1 AND serial_number = ANY($2)`,
      [tenantId, serialNumbers],
    );
    return new Map(
      rows.map((r) => [
        r.serial_number,
        { notAfter: r.not_after, revokedAt: r.revoked_at, reasonCode: r.reason_code },
      ]),
    );
  }
}
