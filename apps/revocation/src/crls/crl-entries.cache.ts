import { EncodedCrlEntries, publishedReasonCode } from '@ca/pki';
import { Injectable } from '@nestjs/common';
import { RecordedEntry, RevokedCertificateStore } from '../stores/revoked-certificate.store';

/**
 * How far back before the newest recorded revocation seen each read reaches: a revocation's
 * `recorded_at` is its transaction's start, and that transaction can commit after a later one.
 */
export const RECORDED_AT_OVERLAP_MS = 5_000;

interface Kept {
  entries: EncodedCrlEntries;
  serials: Set<string>;
  /** The newest `recorded_at` read; undefined while the CA has no entries. */
  recordedUpTo?: Date;
  /** The issuer's `entries_removed` when these entries were read. */
  removals: string;
}

/**
 * Every revoked entry of a CA (its CRL's scope), DER-encoded and kept between CRL builds, so a build after one
 * more revocation reads and encodes that one, not all 100,000. Each read takes the
 * entries recorded since a little before the newest one seen, skips serials already kept, and
 * checks the result against the ledger's count in the same statement (one snapshot): entries are
 * only added (one per serial, never changed), so equal counts mean every entry is kept exactly
 * once. The one removal, a released certificateHold, bumps the issuer's `entries_removed` in the
 * transaction that deletes the entry: a changed value read in the same snapshot means an entry
 * kept here may be gone (or back with another date), so everything is read again. So does
 * anything else, such as a revocation committed later than the overlap reaches back or recorded
 * by a replica with this one's cache gone stale. Safe with several replicas: each keeps its own
 * and the ledger decides.
 */
@Injectable()
export class CrlEntriesCache {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly ledger: RevokedCertificateStore) {}

  async read(caId: string): Promise<EncodedCrlEntries> {
    const kept = this.kept.get(caId);
    if (kept?.recordedUpTo) {
      const since = new Date(kept.recordedUpTo.getTime() - RECORDED_AT_OVERLAP_MS);
      const { total, removals, entries } = await this.ledger.read(caId, since);
      const fresh = entries.filter((entry) => !kept.serials.has(entry.serialNumber));
      if (removals === kept.removals && kept.serials.size + fresh.length === total) {
        return this.keep(caId, kept, fresh, removals);
      }
    }
    const { removals, entries } = await this.ledger.read(caId);
    const empty = { entries: EncodedCrlEntries.none, serials: new Set<string>(), removals };
    return this.keep(caId, empty, entries, removals);
  }

  private keep(caId: string, kept: Kept, rows: RecordedEntry[], removals: string): EncodedCrlEntries {
    // Encoded before anything is changed: an invalid entry leaves the kept ones as they were.
    const entries = kept.entries.append(
      EncodedCrlEntries.encode(
        rows.map((r) => ({
          serialNumberHex: r.serialNumber,
          revocationDate: r.revocationDate,
          reasonCode: publishedReasonCode(r.reasonCode) ?? 0,
        })),
      ),
    );
    let recordedUpTo = kept.recordedUpTo;
    for (const row of rows) {
      kept.serials.add(row.serialNumber);
      if (!recordedUpTo || row.recordedAt > recordedUpTo) recordedUpTo = row.recordedAt;
    }
    this.kept.set(caId, { entries, serials: kept.serials, recordedUpTo, removals });
    return entries;
  }
}
