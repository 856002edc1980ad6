import { RevocationReasonCodes } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** A revoked serial under the CA that issued it (its CRL, RFC 5280 5.1.2.3). */
export interface LedgerEntry {
  tenantId: string;
  caId: string;
  serialNumber: string;
  certificateId: string;
  revokedAt: Date | string;
  reasonCode: number;
}

/** An entry as a CRL lists it. */
export interface ListedEntry {
  serialNumber: string;
  revocationDate: Date;
  reasonCode: number;
}

/** An entry and when it was recorded (its transaction's start). */
export interface RecordedEntry extends ListedEntry {
  recordedAt: Date;
}

/** One read of a CA's ledger, all from one snapshot. */
export interface LedgerRead {
  /** Entries of the CA in the ledger. */
  total: number;
  /** The issuer's `entries_removed` (a decimal string). */
  removals: string;
  entries: RecordedEntry[];
}

/** The hold a `certificate.hold-released` names (RFC 5280 5.3.1: a full CRL stops listing it). */
export interface HeldEntry {
  tenantId: string;
  caId: string;
  serialNumber: string;
  certificateId: string;
  heldSince: Date | string;
}

/**
 * `revocation.revoked_certificates`, the ledger: one entry per revoked serial of a CA that signs
 * (or signed) leaves; a serial is added once and never changed, except by a correction from
 * issuance, the owner of revocations. Serials compare as issuance writes them (lower case, no
 * leading zeros) where a correction names them.
 */
export abstract class RevokedCertificateStore {
  /** Adds an entry; false when the CA lists the serial already. */
  abstract add(entry: LedgerEntry): Promise<boolean>;
  /** Adds entries in one statement; returns the CAs that got a new one (each once). */
  abstract addMany(entries: LedgerEntry[]): Promise<string[]>;
  /** Adds entries in one statement; returns those added (a serial its CA lists already is left out). */
  abstract addNew(entries: LedgerEntry[]): Promise<LedgerEntry[]>;
  /**
   * Adds an issuing CA (`certificateId` its CA id) as an entry of `issuerCaId`'s CRL, if that is a
   * CRL issuer of `tenantId`; false when it is not, or lists the serial already.
   */
  abstract addUnderIssuer(
    tenantId: string,
    issuerCaId: string,
    entry: Omit<LedgerEntry, 'tenantId' | 'caId'>,
  ): Promise<boolean>;
  /** Removes exactly this hold (reason 6, same date); false when there is none. */
  abstract removeHold(hold: HeldEntry): Promise<boolean>;
  /** Every entry of the CA. */
  abstract entriesOf(tenantId: string, caId: string): Promise<ListedEntry[]>;
  /** Removes the CA's entries of these serials, spelled as stored. */
  abstract remove(caId: string, serialNumbers: string[]): Promise<void>;
  /** Removes the CA's entries of these serials (lower case, no leading zeros); returns how many. */
  abstract removeSerials(caId: string, serialsHex: string[]): Promise<number>;
  /** Removes the CA's entries of this serial spelled otherwise (case, leading zeros); returns how many. */
  abstract removeOtherSpellings(caId: string, serialHex: string): Promise<number>;
  /** Adds the entry, or sets its date, reason and certificate; false when it was so already. */
  abstract correct(entry: LedgerEntry): Promise<boolean>;
  /**
   * The CA's entries recorded at or after `since` (all without it), with its entry count and its
   * issuer's removal count, in one statement (one snapshot).
   */
  abstract read(caId: string, since?: Date): Promise<LedgerRead>;
}

export class SqlRevokedCertificateStore extends RevokedCertificateStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async add(entry: LedgerEntry): Promise<boolean> {
    const { tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode } = entry;
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING 1`,
      [tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode],
    );
    return inserted.length > 0;
  }

  async addMany(entries: LedgerEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const rows: { ca_id: string }[] = await this.db.query(
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[], $6::int[])
       ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING ca_id::text`,
      [
        entries.map((entry) => entry.tenantId),
        entries.map((entry) => entry.caId),
        entries.map((entry) => entry.serialNumber),
        entries.map((entry) => entry.certificateId),
        entries.map((entry) => entry.revokedAt),
        entries.map((entry) => entry.reasonCode),
      ],
    );
    return [...new Set(rows.map((row) => row.ca_id))];
  }

  async addNew(entries: LedgerEntry[]): Promise<LedgerEntry[]> {
    if (entries.length === 0) return [];
    const rows: { ca_id: string; serial_number: string }[] = await this.db.query(
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[], $6::int[])
       ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING ca_id::text, serial_number`,
      [
        entries.map((entry) => entry.tenantId),
        entries.map((entry) => entry.caId),
        entries.map((entry) => entry.serialNumber),
        entries.map((entry) => entry.certificateId),
        entries.map((entry) => entry.revokedAt),
        entries.map((entry) => entry.reasonCode),
      ],
    );
    const added = new Set(rows.map((row) => `${row.ca_id.toLowerCase()}:${row.serial_number}`));
    return entries.filter((entry) => added.has(`${entry.caId.toLowerCase()}:${entry.serialNumber}`));
  }

  async addUnderIssuer(
    tenantId: string,
    issuerCaId: string,
    { serialNumber, certificateId, revokedAt, reasonCode }: Omit<LedgerEntry, 'tenantId' | 'caId'>,
  ): Promise<boolean> {
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       SELECT tenant_id, ca_id, $3, $4, $5, $6 FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2
       ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING 1`,
      [tenantId, issuerCaId, serialNumber, certificateId, revokedAt, reasonCode],
    );
    return inserted.length > 0;
  }

  async removeHold({ tenantId, caId, serialNumber, certificateId, heldSince }: HeldEntry): Promise<boolean> {
    const deleted: [unknown[], number] = await this.db.query(
      `DELETE FROM revocation.revoked_certificates
        WHERE tenant_id = $1 AND serial_number = $2 AND certificate_id = $3
          AND reason_code = $4 AND revocation_date = $5 AND ca_id = $6`,
      [tenantId, serialNumber, certificateId, RevocationReasonCodes.CertificateHold, heldSince, caId],
    );
    return deleted[1] > 0;
  }

  async entriesOf(tenantId: string, caId: string): Promise<ListedEntry[]> {
    const rows: LedgerRow[] = await this.db.query(
      `SELECT serial_number, revocation_date, reason_code FROM revocation.revoked_certificates
        WHERE ca_id = $1 AND tenant_id = $2`,
      [caId, tenantId],
    );
    return rows.map(listed);
  }

  async remove(caId: string, serialNumbers: string[]): Promise<void> {
    await this.db.query(
      'DELETE FROM revocation.revoked_certificates WHERE ca_id = $1 AND serial_number = ANY($2::text[])',
      [caId, serialNumbers],
    );
  }

  async removeSerials(caId: string, serialsHex: string[]): Promise<number> {
    const [, removed]: [unknown[], number] = await this.db.query(
      `DELETE FROM revocation.revoked_certificates WHERE ca_id = $1 AND ltrim(lower(serial_number), '0') = ANY($2::text[])`,
      [caId, serialsHex],
    );
    return removed;
  }

  async removeOtherSpellings(caId: string, serialHex: string): Promise<number> {
    const [, removed]: [unknown[], number] = await this.db.query(
      `DELETE FROM revocation.revoked_certificates
        WHERE ca_id = $1 AND ltrim(lower(serial_number), '0') = ltrim(lower($2), '0') AND serial_number <> $2`,
      [caId, serialHex],
    );
    return removed;
  }

  async correct(entry: LedgerEntry): Promise<boolean> {
    const { tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode } = entry;
    const rows: unknown[] = await this.db.query(
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (ca_id, serial_number) DO UPDATE
         SET revocation_date = EXCLUDED.revocation_date, reason_code = EXCLUDED.reason_code,
             certificate_id = EXCLUDED.certificate_id, recorded_at = now()
         WHERE (revoked_certificates.revocation_date, revoked_certificates.reason_code, revoked_certificates.certificate_id)
               IS DISTINCT FROM (EXCLUDED.revocation_date, EXCLUDED.reason_code, EXCLUDED.certificate_id)
       RETURNING 1`,
      [tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode],
    );
    return rows.length > 0;
  }

  async read(caId: string, since?: Date): Promise<LedgerRead> {
    const rows: (Partial<RecordedRow> & LedgerCounts)[] = await this.db.query(
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
      entries: rows
        .filter((row): row is RecordedRow & LedgerCounts => row.serial_number != null)
        .map((row) => ({ ...listed(row), recordedAt: row.recorded_at })),
    };
  }
}

interface LedgerRow {
  serial_number: string;
  revocation_date: Date;
  reason_code: number;
}

interface RecordedRow extends LedgerRow {
  recorded_at: Date;
}

/** What each row of the ledger read also carries: the CA's entry count and removal count. */
interface LedgerCounts {
  total: number;
  removals: string | null;
}

const listed = (row: LedgerRow): ListedEntry => ({
  serialNumber: row.serial_number,
  revocationDate: row.revocation_date,
  reasonCode: row.reason_code,
});
