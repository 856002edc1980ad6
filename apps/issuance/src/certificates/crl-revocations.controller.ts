import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CrlRevocationsQuery,
  CrlRevocationsResult,
  IssuancePattern,
  assertCommandFields,
} from '@ca/contracts';
import { DataSource } from 'typeorm';

/**
 * `issuance.crl.revocations`: the revocations issuance recorded for one of the tenant's CAs that
 * sign leaves (what a CRL of that CA must list), for revocation to reconcile its ledger with after
 * issuance refused a CRL (docs/architecture.md#certificate-status-sequence). Public facts (a CRL
 * lists them), read by index; a CA of another tenant answers an empty list.
 */
@Controller()
export class CrlRevocationsController {
  constructor(private readonly dataSource: DataSource) {}

  @MessagePattern(IssuancePattern.CrlRevocations)
  async revocations(@Payload() query: CrlRevocationsQuery): Promise<CrlRevocationsResult> {
    assertCommandFields(query, { tenantId: 'uuid', caId: 'uuid' });
    const rows: {
      id: string;
      serial_number: string;
      revoked_at: Date;
      revocation_reason_code: number | null;
    }[] = await this.dataSource.query(
      `SELECT id, serial_number, revoked_at, revocation_reason_code FROM issuance.certificates
          WHERE ca_id = $1 AND tenant_id = $2 AND revoked_at IS NOT NULL`,
      [query.caId, query.tenantId],
    );
    return {
      revocations: rows.map((row) => ({
        certificateId: row.id,
        serialNumber: row.serial_number,
        revokedAt: new Date(row.revoked_at).toISOString(),
        reasonCode: row.revocation_reason_code ?? 0,
      })),
    };
  }
}
