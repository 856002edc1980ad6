import { Logger } from '@nestjs/common';
import { IssuanceApi, IssuancePattern, RecordedRevocation } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { publicationMetrics } from '@ca/observability';
import { DataSource } from 'typeorm';

interface LedgerRow {
  serial_number: string;
  revocation_date: Date;
  reason_code: number;
}

/** One entry as a CRL lists it: serial, revocation time to the second, reason. */
const entryKey = (serial: string, revokedAt: Date | string, reasonCode: number) =>
  `${serial.toLowerCase().replace(/^0+/, '')}:${Math.floor(new Date(revokedAt).getTime() / 1000)}:${reasonCode}`;

/**
 * Makes a CA's ledger entries here match the revocations issuance recorded, after issuance refused
 * a CRL of that CA: a forged `certificate.revoked`, or one replayed after its hold was released,
 * put an entry here that issuance never signs, and without this every later CRL of the CA would be
 * refused too, hiding the real revocations that follow (docs/architecture.md#certificate-status-sequence).
 * Issuance is the one owner of revocations; each entry dropped or added is logged and counted.
 */
export class LedgerReconciliation {
  private readonly logger = new Logger('LedgerReconciliation');

  constructor(
    private readonly dataSource: DataSource,
    private readonly issuance: RpcClient<IssuanceApi>,
  ) {}

  /** Returns whether the ledger changed (then a new CRL is worth building at once). */
  async reconcile(tenantId: string, caId: string): Promise<boolean> {
    const { revocations } = await this.issuance.send(IssuancePattern.CrlRevocations, { tenantId, caId });
    const recorded = new Map<string, RecordedRevocation>(
      revocations.map((r) => [entryKey(r.serialNumber, r.revokedAt, r.reasonCode), r]),
    );
    const { extra, missing } = await this.dataSource.transaction(async (manager) => {
      // Under the issuer's row lock, so a revocation recorded meanwhile is not taken for extra.
      await manager.query('SELECT 1 FROM revocation.crl_issuers WHERE ca_id = $1 FOR UPDATE', [caId]);
      const rows: LedgerRow[] = await manager.query(
        `SELECT serial_number, revocation_date, reason_code FROM revocation.revoked_certificates
          WHERE ca_id = $1 AND tenant_id = $2`,
        [caId, tenantId],
      );
      const extraRows = rows.filter(
        (row) => !recorded.delete(entryKey(row.serial_number, row.revocation_date, row.reason_code)),
      );
      const missingRows = [...recorded.values()];
      if (extraRows.length > 0) {
        await manager.query(
          'DELETE FROM revocation.revoked_certificates WHERE ca_id = $1 AND serial_number = ANY($2::text[])',
          [caId, extraRows.map((row) => row.serial_number)],
        );
        // The entries cache reads the whole ledger again when this count moves.
        await manager.query(
          'UPDATE revocation.crl_issuers SET entries_removed = entries_removed + $2 WHERE ca_id = $1',
          [caId, extraRows.length],
        );
      }
      for (const r of missingRows) {
        await manager.query(
          `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (ca_id, serial_number) DO NOTHING`,
          [tenantId, caId, r.serialNumber, r.certificateId, r.revokedAt, r.reasonCode],
        );
      }
      return { extra: extraRows, missing: missingRows };
    });
    if (extra.length === 0 && missing.length === 0) return false;
    publicationMetrics.reconciledCrlEntriesTotal.inc({ change: 'dropped' }, extra.length);
    publicationMetrics.reconciledCrlEntriesTotal.inc({ change: 'added' }, missing.length);
    this.logger.warn(
      {
        tenantId,
        caId,
        dropped: extra.map((row) => row.serial_number),
        added: missing.map((r) => r.serialNumber),
      },
      "revocation ledger reconciled with issuance's after a refused CRL (a forged, replayed or lost revocation event)",
    );
    return true;
  }
}
