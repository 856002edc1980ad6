import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CrlRevocationsQuery,
  CrlRevocationsResult,
  IssuancePattern,
  assertCommandFields,
} from '@ca/contracts';
import { CertificateStore } from './certificate.store';

/**
 * `issuance.crl.revocations`: the revocations issuance recorded for one of the tenant's CAs that
 * sign leaves (what a CRL of that CA must list), for revocation to reconcile its ledger with after
 * issuance refused a CRL (docs/architecture.md#certificate-status-sequence). Public facts (a CRL
 * lists them), read by index; a CA of another tenant answers an empty list.
 */
@Controller()
export class CrlRevocationsController {
  constructor(private readonly certificates: CertificateStore) {}

  @MessagePattern(IssuancePattern.CrlRevocations)
  async revocations(@Payload() query: CrlRevocationsQuery): Promise<CrlRevocationsResult> {
    assertCommandFields(query, { tenantId: 'uuid', caId: 'uuid' });
    const rows = await this.certificates.revokedUnder(query.caId, query.tenantId);
    return {
      revocations: rows.map((row) => ({
        certificateId: row.id,
        serialNumber: row.serialNumber,
        revokedAt: new Date(row.revokedAt).toISOString(),
        reasonCode: row.reasonCode ?? 0,
      })),
    };
  }
}
