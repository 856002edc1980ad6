import {
  CaError,
  CaRevokedPayload,
  CaRole,
  EventType,
  RevocationReasonCodes,
  RevokeCaCommand,
  RevokeCaRequest,
  RevokeCaResult,
  assertCommandFields,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { recordEvent } from '@ca/messaging';
import { ResponderPublication } from '../publication/responder-publication';
import { parseCertificate } from '@ca/pki';
import { DataSource } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { revocationEventFields, revocationNow } from '../revocation-record';

interface RenewedRootRow {
  id: string;
  role: string;
  serial_number: string;
  previous_root_ca_id: string | null;
  cross_certificate_der: Buffer | null;
  cross_revoked_at: Date | null;
}

/**
 * docs/api.md#revoke-a-cross-certificate: the cross certificate the previous root signed for a root
 * made by renewal → revoked, once (row locked). The previous root's CRL (`root.crl` for the first
 * root, else `ca/{previousRootId}/crl`: the cross certificate's own CRL distribution point) then
 * lists it, so relying parties anchored on the previous root stop reaching the renewed root; the
 * renewed root itself and what it signed stay valid for those that trust it. Change and
 * `ca.revoked` (flagged `crossCertificate`) commit together.
 */
export class RevokeCrossCertificateHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly onEventsRecorded: () => void,
    private readonly publication?: ResponderPublication,
  ) {}

  async execute(command: RevokeCaCommand): Promise<RevokeCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', caId: 'uuid' });
    const request = await validateDto(RevokeCaRequest, command.request);
    const revocation = revocationNow(
      request.reason,
      RevocationReasonCodes[request.reasonCode],
      command.principal,
    );
    const result = await this.dataSource.transaction(async (manager) => {
      const rows: RenewedRootRow[] = await manager.query(
        `SELECT id, role, serial_number, previous_root_ca_id, cross_certificate_der, cross_revoked_at
           FROM issuance.certificate_authorities WHERE id = $1 AND tenant_id = $2 FOR UPDATE`,
        [command.caId, command.tenantId],
      );
      const root = rows[0];
      if (!root) throw CaError.notFound('No CA of this tenant has this id.');
      if (root.role !== CaRole.Root || !root.cross_certificate_der || !root.previous_root_ca_id) {
        throw CaError.validation([
          {
            field: 'caId',
            message: 'has no cross certificate: only a root made by renewal (POST /v2/ca/root/renew) has one',
          },
        ]);
      }
      if (root.cross_revoked_at) throw CaError.conflict('This cross certificate is already revoked.');
      const serialNumber = parseCertificate(new Uint8Array(root.cross_certificate_der)).serialNumberHex;
      await manager.query(
        `UPDATE issuance.certificate_authorities
            SET cross_serial_number = $3, cross_revoked_at = $4, cross_revocation_reason = $5,
                cross_revocation_reason_code = $6, cross_revoked_by = $7
          WHERE id = $1 AND tenant_id = $2`,
        [
          root.id,
          command.tenantId,
          serialNumber,
          revocation.revokedAt,
          revocation.revocationReason,
          revocation.revocationReasonCode,
          revocation.revokedBy,
        ],
      );
      const event = await recordEvent<CaRevokedPayload>(manager, ISSUANCE_SCHEMA, EventType.CaRevoked, {
        tenantId: command.tenantId,
        caId: root.id,
        issuerCaId: root.previous_root_ca_id,
        serialNumber,
        ...revocationEventFields(revocation),
        crossCertificate: true,
      });
      return {
        answer: { caId: root.id, serialNumber, revokedAt: revocation.revokedAt.toISOString() },
        event,
      };
    });
    this.onEventsRecorded();
    // Recorded either way; published says whether the responder already has it (docs/api.md).
    const published = (await this.publication?.published([result.event], 'revocation')) ?? false;
    return { ...result.answer, published };
  }
}
