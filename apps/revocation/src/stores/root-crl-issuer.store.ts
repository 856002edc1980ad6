import { EntityManager } from 'typeorm';
import { NewCrlIssuer } from './crl-issuer.store';

/** What a build of a tenant's root CRL reads of its issuer. */
export interface RootCrlIssuerForBuild {
  certificateDer: Buffer;
  /** The root's own CRLNumber sequence (RFC 5280 5.2.3). */
  nextCrlNumber: bigint;
}

/**
 * `revocation.root_crl_issuers`: the root of each tenant with an issuing CA, which issues
 * `root.crl` (docs/api.md#distribution-points) with numbers of its own, and what its newest CRL
 * holds (nextUpdate, entry count).
 */
export abstract class RootCrlIssuerStore {
  /** Registers the tenant's root; a tenant's root registered before stays as it is. */
  abstract register(issuer: NewCrlIssuer): Promise<void>;
  /** Whether `caId` is the root of `tenantId` here. */
  abstract isRootOf(tenantId: string, caId: string): Promise<boolean>;
  /** The root's certificate, if `caId` is the root of `tenantId` here. */
  abstract certificateOf(tenantId: string, caId: string): Promise<Buffer | undefined>;
  abstract forBuild(tenantId: string): Promise<RootCrlIssuerForBuild | undefined>;
  /**
   * Takes `crlNumber` if it is still the root's next one, recording the CRL's nextUpdate and entry
   * count; false when another replica took it.
   */
  abstract takeNumber(
    tenantId: string,
    crlNumber: bigint,
    nextUpdate: Date,
    entryCount: number,
  ): Promise<boolean>;
  /** Moves the next number from `expected` to `next`; nothing when it moved already. */
  abstract skipTo(tenantId: string, expected: bigint, next: bigint): Promise<void>;
  /**
   * The tenants whose unexpired root's CRL was never published, has its nextUpdate before
   * `before`, or lacks a revoked issuing CA.
   */
  abstract dueBefore(before: Date): Promise<string[]>;
}

export class SqlRootCrlIssuerStore extends RootCrlIssuerStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async register({ tenantId, caId, certificateDer, notAfter }: NewCrlIssuer): Promise<void> {
    await this.db.query(
      `INSERT INTO revocation.root_crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after)
       VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id) DO NOTHING`,
      [tenantId, caId, certificateDer, notAfter],
    );
  }

  async isRootOf(tenantId: string, caId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      'SELECT 1 FROM revocation.root_crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
      [tenantId, caId],
    );
    return rows.length > 0;
  }

  async certificateOf(tenantId: string, caId: string): Promise<Buffer | undefined> {
    const rows: { ca_certificate_der: Buffer }[] = await this.db.query(
      'SELECT ca_certificate_der FROM revocation.root_crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
      [tenantId, caId],
    );
    return rows[0]?.ca_certificate_der;
  }

  async forBuild(tenantId: string): Promise<RootCrlIssuerForBuild | undefined> {
    const rows: { ca_certificate_der: Buffer; next_crl_number: string }[] = await this.db.query(
      'SELECT ca_certificate_der, next_crl_number FROM revocation.root_crl_issuers WHERE tenant_id = $1',
      [tenantId],
    );
    if (rows.length === 0) return undefined;
    return { certificateDer: rows[0].ca_certificate_der, nextCrlNumber: BigInt(rows[0].next_crl_number) };
  }

  async takeNumber(
    tenantId: string,
    crlNumber: bigint,
    nextUpdate: Date,
    entryCount: number,
  ): Promise<boolean> {
    const updated: [unknown[], number] = await this.db.query(
      `UPDATE revocation.root_crl_issuers SET next_crl_number = next_crl_number + 1, next_update = $3, entry_count = $4
        WHERE tenant_id = $1 AND next_crl_number = $2`,
      [tenantId, crlNumber.toString(), nextUpdate, entryCount],
    );
    return updated[1] === 1;
  }

  async skipTo(tenantId: string, expected: bigint, next: bigint): Promise<void> {
    await this.db.query(
      'UPDATE revocation.root_crl_issuers SET next_crl_number = $3 WHERE tenant_id = $1 AND next_crl_number = $2',
      [tenantId, expected.toString(), next.toString()],
    );
  }

  async dueBefore(before: Date): Promise<string[]> {
    const due: { tenant_id: string }[] = await this.db.query(
      `SELECT i.tenant_id FROM revocation.root_crl_issuers i
        WHERE i.ca_not_after > now()
          AND (i.next_update IS NULL OR i.next_update < $1
               OR i.entry_count <> (SELECT count(*) FROM revocation.revoked_cas r WHERE r.tenant_id = i.tenant_id))`,
      [before],
    );
    return due.map((row) => row.tenant_id);
  }
}
