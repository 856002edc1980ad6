import { CrlEntryDifference } from '@ca/contracts';
import { RevocationTables } from '../stores/revocation-database.store';

/** What a correction changed in revocation's ledger. */
export interface LedgerCorrection {
  removed: number;
  added: number;
}

/**
 * Corrects the entries of one CA's `/crl` from a refusal of issuance, the owner of revocations
 * (crlEntryDifferences): an entry issuance does not record so (a forged or replayed
 * `certificate.revoked`, a release whose event has not arrived) goes, a revocation it records and
 * this ledger lacks (an event lost or still on its way) comes in as issuance states it. Counted in
 * `entries_removed`, so every replica's CrlEntriesCache reads the CA's entries again. Runs in the
 * caller's transaction (`tables`).
 */
export async function correctCaEntries(
  { ledger, issuers }: RevocationTables,
  tenantId: string,
  caId: string,
  differences: CrlEntryDifference[],
): Promise<LedgerCorrection> {
  const extra = differences.filter((d) => d.kind === 'extra').map((d) => d.serialHex);
  const removed = await ledger.removeSerials(caId, extra);
  let added = 0;
  let duplicates = 0;
  for (const d of differences) {
    if (d.kind !== 'missing') continue;
    // One entry per serial: a row of the same serial written otherwise (case, leading zeros) goes.
    duplicates += await ledger.removeOtherSpellings(caId, d.serialHex);
    const changed = await ledger.correct({
      tenantId,
      caId,
      serialNumber: d.serialHex,
      certificateId: d.id,
      revokedAt: d.revokedAt,
      reasonCode: d.reasonCode,
    });
    if (changed) added++;
  }
  // The count moves by one per correction: what matters is that it moves.
  if (removed + duplicates + added > 0) await issuers.countRemovals(caId, 1);
  return { removed: removed + duplicates, added };
}

/** The same for a tenant's `root.crl`, whose entries are its revoked issuing CAs. */
export async function correctRootEntries(
  { revokedCas }: RevocationTables,
  tenantId: string,
  differences: CrlEntryDifference[],
): Promise<LedgerCorrection> {
  const extra = differences.filter((d) => d.kind === 'extra').map((d) => d.serialHex);
  const removed = await revokedCas.removeSerials(tenantId, extra);
  let added = 0;
  let duplicates = 0;
  for (const d of differences) {
    if (d.kind !== 'missing') continue;
    duplicates += await revokedCas.removeOtherSpellings(tenantId, d.serialHex);
    const changed = await revokedCas.correct({
      tenantId,
      serialNumber: d.serialHex,
      caId: d.id,
      revokedAt: d.revokedAt,
      reasonCode: d.reasonCode,
    });
    if (changed) added++;
  }
  return { removed: removed + duplicates, added };
}
