import { Injectable, Logger } from '@nestjs/common';
import { IssuanceApi, IssuancePattern, RecordedRevocation } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { publicationMetrics } from '@ca/observability';
import { RevocationDatabase } from '../stores/revocation-database.store';
import { LedgerEntry } from '../stores/revoked-certificate.store';

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
@Injectable()
export class LedgerReconciliation {
  private readonly logger = new Logger('LedgerReconciliation');

  constructor(
    private readonly database: RevocationDatabase,
    private readonly issuance: RpcClient<IssuanceApi>,
  ) {}

  /** Returns whether the ledger changed (then a new CRL is worth building at once). */
  async reconcile(tenantId: string, caId: string): Promise<boolean> {
    const { revocations } = await this.issuance.send(IssuancePattern.CrlRevocations, { tenantId, caId });
    const recorded = new Map<string, RecordedRevocation>(
      revocations.map((r) => [entryKey(r.serialNumber, r.revokedAt, r.reasonCode), r]),
    );
    const { extra, missing } = await this.database.transaction(async ({ issuers, ledger }) => {
      // Under the issuer's row lock, so a revocation recorded meanwhile is not taken for extra.
      await issuers.lock(caId);
      const entries = await ledger.entriesOf(tenantId, caId);
      const extraEntries = entries.filter(
        (entry) => !recorded.delete(entryKey(entry.serialNumber, entry.revocationDate, entry.reasonCode)),
      );
      const missingEntries = [...recorded.values()];
      if (extraEntries.length > 0) {
        await ledger.remove(
          caId,
          extraEntries.map((entry) => entry.serialNumber),
        );
        // The entries cache reads the whole ledger again when this count moves.
        await issuers.countRemovals(caId, extraEntries.length);
      }
      // One statement however many (a bulk revocation the ledger missed is thousands).
      await ledger.addMany(missingEntries.map((r) => entryOf(tenantId, caId, r)));
      return { extra: extraEntries, missing: missingEntries };
    });
    if (extra.length === 0 && missing.length === 0) return false;
    publicationMetrics.reconciledCrlEntriesTotal.inc({ change: 'dropped' }, extra.length);
    publicationMetrics.reconciledCrlEntriesTotal.inc({ change: 'added' }, missing.length);
    this.logger.warn(
      {
        tenantId,
        caId,
        dropped: extra.map((entry) => entry.serialNumber),
        added: missing.map((r) => r.serialNumber),
      },
      "revocation ledger reconciled with issuance's after a refused CRL (a forged, replayed or lost revocation event)",
    );
    return true;
  }

  /**
   * Adds every revocation issuance recorded for the CA that the ledger lacks, in one statement, and
   * removes nothing: after a refusal that named only the first CRL_ENTRY_DIFFERENCES_NAMED missing
   * entries (a ledger far behind, say a bulk revocation whose batches reached it neither directly nor
   * yet by the stream), the whole difference in one go instead of one refused CRL per 500. Only
   * additions: issuance commits a revocation before anyone hears of it, so what issuance lists is a
   * fact, while an entry here that its list (read a moment earlier) lacks may be one just recorded.
   * The list comes by reference when large (RpcReplyInterceptor). Returns how many were added.
   */
  async addMissing(tenantId: string, caId: string): Promise<number> {
    const { revocations } = await this.issuance.send(IssuancePattern.CrlRevocations, { tenantId, caId });
    const added = await this.database.transaction(({ ledger }) =>
      ledger.addNew(revocations.map((r) => entryOf(tenantId, caId, r))),
    );
    if (added.length > 0) {
      publicationMetrics.reconciledCrlEntriesTotal.inc({ change: 'added' }, added.length);
      this.logger.warn(
        { tenantId, caId, added: added.length },
        "revocation ledger completed from issuance's after a refused CRL named more missing entries than it lists",
      );
    }
    return added.length;
  }
}

const entryOf = (tenantId: string, caId: string, r: RecordedRevocation): LedgerEntry => ({
  tenantId,
  caId,
  serialNumber: r.serialNumber,
  certificateId: r.certificateId,
  revokedAt: r.revokedAt,
  reasonCode: r.reasonCode,
});
