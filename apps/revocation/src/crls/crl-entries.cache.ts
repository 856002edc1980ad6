import { EncodedCrlEntries, publishedReasonCode } from '@ca/pki';
import { DataSource } from 'typeorm';

/**
 * How far back before the newest recorded revocation seen each read reaches: a revocation's
 * `recorded_at` is its transaction's start, and that transaction can commit after a later one.
 */
export const RECORDED_AT_OVERLAP_MS = 5_000;

interface LedgerRow {
  serial_number: string;
  revocation_date: Date;
  reason_code: number;
  recorded_at: Date;
}

/** What each row of the ledger read also carries: the CA's entry count and removal count. */
interface LedgerCounts {
  total: number;
  removals: string | null;
}

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
export class CrlEntriesCache {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly dataSource: DataSource) {}

  async read(caId: string): Promise<EncodedCrlEntries> {
    const kept = this.kept.get(caId);
    if (kept?.recordedUpTo) {
      const since = new Date(kept.recordedUpTo.getTime() - RECORDED_AT_OVERLAP_MS);
      const { total, removals, rows } = await this.query(caId, since);
      const fresh = rows.filter((row) => !kept.serials.has(row.serial_number));
      if (removals === kept.removals && kept.serials.size + fresh.length === total) {
        return this.keep(caId, kept, fresh, removals);
      }
    }
    const { removals, rows } = await this.query(caId);
    const empty = { entries: EncodedCrlEntries.none, serials: new Set<string>(), removals };
    return this.keep(caId, empty, rows, removals);
  }

  private keep(caId: string, kept: Kept, rows: LedgerRow[], removals: string): EncodedCrlEntries {
    // Encoded before anything is changed: an invalid entry leaves the kept ones as they were.
    const entries = kept.entries.append(
      EncodedCrlEntries.encode(
        rows.map((r) => ({
          serialNumberHex: r.serial_number,
          revocationDate: r.revocation_date,
          reasonCode: publishedReasonCode(r.reason_code) ?? 0,
        })),
      ),
    );
    let recordedUpTo = kept.recordedUpTo;
    for (const row of rows) {
      kept.serials.add(row.serial_number);
      if (!recordedUpTo || row.recorded_at > recordedUpTo) recordedUpTo = row.recorded_at;
    }
    this.kept.set(caId, { entries, serials: kept.serials, recordedUpTo, removals });
    return entries;
  }

  /**
   * The entries recorded at or after `since` (all without it), the CA's total and its issuer's
   * removal count, in one snapshot.
   */
  private async query(
    caId: string,
    since?: Date,
  ): Promise<{ total: number; removals: string; rows: LedgerRow[] }> {
    const rows: (Partial<LedgerRow> & LedgerCounts)[] = await this.dataSource.query(
      `WITH total AS (SELECT count(*)::int AS n FROM revocation.revoked_certificates WHERE ca_id = $1),
            issuer AS (SELECT (SELECT entries_removed::text FROM revocation.crl_issuers WHERE ca_id = $1) AS removals)
       SELECT total.n AS total, issuer.removals, r.serial_number, r.revocation_date, r.reason_code, r.recorded_at
         FROM total CROSS JOIN issuer LEFT JOIN revocation.revoked_certificates r
           ON r.ca_id = $1${since ? ' AND r.recorded_at >= $2' : ''}`,
      since ? [caId, since] : [caId],
    );
    return {
      total: Number(rows[0]?.total ?? 0),
      removals: rows[0]?.removals ?? '0',
      rows: rows.filter((row): row is LedgerRow & LedgerCounts => row.serial_number != null),
    };
  }
}
