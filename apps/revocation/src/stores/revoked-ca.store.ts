import { EntityManager } from 'typeorm';
import { ListedEntry } from './revoked-certificate.store';

/** A revoked issuing CA on its tenant's root CRL (docs/api.md#revoke-an-issuing-ca). */
export interface RevokedCaEntry {
  tenantId: string;
  serialNumber: string;
  /** The revoked issuing CA. */
  caId: string;
  revokedAt: Date | string;
  reasonCode: number;
}

/**
 * `revocation.revoked_cas`: the entries of each tenant's `root.crl`, one per revoked issuing CA
 * serial. Serials compare as issuance writes them (lower case, no leading zeros) where a
 * correction names them.
 */
export abstract class RevokedCaStore {
  /** Adds an entry; false when the root CRL lists the serial already. */
  abstract add(entry: RevokedCaEntry): Promise<boolean>;
  abstract entriesOf(tenantId: string): Promise<ListedEntry[]>;
  /** Removes the tenant's entries of these serials (lower case, no leading zeros); returns how many. */
  abstract removeSerials(tenantId: string, serialsHex: string[]): Promise<number>;
  /** Removes the tenant's entries of this serial spelled otherwise; returns how many. */
  abstract removeOtherSpellings(tenantId: string, serialHex: string): Promise<number>;
  /** Adds the entry, or sets its date, reason and CA; false when it was so already. */
  abstract correct(entry: RevokedCaEntry): Promise<boolean>;
}

export class SqlRevokedCaStore extends RevokedCaStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async add({ tenantId, serialNumber, caId, revokedAt, reasonCode }: RevokedCaEntry): Promise<boolean> {
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO revocation.revoked_cas (tenant_id, serial_number, ca_id, revocation_date, reason_code)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id, serial_number) DO NOTHING RETURNING 1`,
      [tenantId, serialNumber, caId, revokedAt, reasonCode],
    );
    return inserted.length > 0;
  }

  async entriesOf(tenantId: string): Promise<ListedEntry[]> {
    const rows: { serial_number: string; revocation_date: Date; reason_code: number }[] = await this.db.query(
      'SELECT serial_number, revocation_date, reason_code FROM revocation.revoked_cas WHERE tenant_id = $1',
      [tenantId],
    );
    return rows.map((row) => ({
      serialNumber: row.serial_number,
      revocationDate: row.revocation_date,
      reasonCode: row.reason_code,
    }));
  }

  async removeSerials(tenantId: string, serialsHex: string[]): Promise<number> {
    const [, removed]: [unknown[], number] = await this.db.query(
      `DELETE FROM revocation.revoked_cas WHERE tenant_id = $1 AND ltrim(lower(serial_number), '0') = ANY($2::text[])`,
      [tenantId, serialsHex],
    );
    return removed;
  }

  async removeOtherSpellings(tenantId: string, serialHex: string): Promise<number> {
    const [, removed]: [unknown[], number] = await this.db.query(
      `DELETE FROM revocation.revoked_cas
        WHERE tenant_id = $1 AND ltrim(lower(serial_number), '0') = ltrim(lower($2), '0') AND serial_number <> $2`,
      [tenantId, serialHex],
    );
    return removed;
  }

  async correct({ tenantId, serialNumber, caId, revokedAt, reasonCode }: RevokedCaEntry): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO revocation.revoked_cas (tenant_id, serial_number, ca_id, revocation_date, reason_code)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, serial_number) DO UPDATE
         SET revocation_date = EXCLUDED.revocation_date, reason_code = EXCLUDED.reason_code, ca_id = EXCLUDED.ca_id
         WHERE (revoked_cas.revocation_date, revoked_cas.reason_code, revoked_cas.ca_id)
               IS DISTINCT FROM (EXCLUDED.revocation_date, EXCLUDED.reason_code, EXCLUDED.ca_id)
       RETURNING 1`,
      [tenantId, serialNumber, caId, revokedAt, reasonCode],
    );
    return rows.length > 0;
  }
}
