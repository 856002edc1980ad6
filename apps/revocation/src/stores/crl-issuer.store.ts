import { EntityManager } from 'typeorm';

/** A CA registered as a CRL issuer (docs/api.md#add-an-issuing-ca: each with its own numbers). */
export interface NewCrlIssuer {
  tenantId: string;
  caId: string;
  certificateDer: Buffer;
  /** The CA's notAfter: its CRL is re-signed until then. */
  notAfter: string;
}

/** What a CRL build of one CA reads of its issuer. */
export interface CrlIssuerForBuild {
  tenantId: string;
  certificateDer: Buffer;
  /** The CRLNumber (RFC 5280 5.2.3) the next CRL takes. */
  nextCrlNumber: bigint;
}

/**
 * `revocation.crl_issuers`: every tenant CA that signs or signed leaves, with its CRLNumber
 * sequence and the count of entries ever removed from its ledger (which makes every replica's
 * CrlEntriesCache read the CA's entries again). The build lease on the same rows is
 * CrlBuildLeaseStore's.
 */
export abstract class CrlIssuerStore {
  /** Registers a CA, numbering from 1; one registered before stays as it is. */
  abstract register(issuer: NewCrlIssuer): Promise<void>;
  /** Whether `caId` is a CRL issuer of `tenantId`. */
  abstract isIssuerOf(tenantId: string, caId: string): Promise<boolean>;
  /** Which of `caIds` are CRL issuers, with their tenant (ids in lower case). */
  abstract issuersAmong(caIds: string[]): Promise<{ tenantId: string; caId: string }[]>;
  /** The certificate of a CRL issuer of `tenantId`, if `caId` is one. */
  abstract certificateOf(tenantId: string, caId: string): Promise<Buffer | undefined>;
  /** Locks the issuer's row until the transaction ends: no revocation of its CA is recorded meanwhile. */
  abstract lock(caId: string): Promise<void>;
  /** Counts `removed` entries gone from the CA's ledger. */
  abstract countRemovals(caId: string, removed: number): Promise<void>;
  abstract forBuild(caId: string): Promise<CrlIssuerForBuild | undefined>;
  /**
   * Takes `crlNumber` if it is still the CA's next one (a conditional update, under the row lock,
   * so two replicas can never publish the same number); false when another took it.
   */
  abstract takeNumber(caId: string, crlNumber: bigint): Promise<boolean>;
  /** Moves the next number from `expected` to `next`; nothing when it moved already. */
  abstract skipTo(caId: string, expected: bigint, next: bigint): Promise<void>;
  /**
   * The CAs, unexpired (retired ones too), whose newest CRL is missing, has its nextUpdate before
   * `before`, or lists fewer entries than the ledger holds (a build that failed after a revocation).
   */
  abstract dueBefore(before: Date): Promise<string[]>;
}

export class SqlCrlIssuerStore extends CrlIssuerStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async register({ tenantId, caId, certificateDer, notAfter }: NewCrlIssuer): Promise<void> {
    await this.db.query(
      `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after) VALUES ($1, $2, $3, $4)
       ON CONFLICT (ca_id) DO NOTHING`,
      [tenantId, caId, certificateDer, notAfter],
    );
  }

  async isIssuerOf(tenantId: string, caId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      'SELECT 1 FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
      [tenantId, caId],
    );
    return rows.length > 0;
  }

  async issuersAmong(caIds: string[]): Promise<{ tenantId: string; caId: string }[]> {
    if (caIds.length === 0) return [];
    const rows: { tenant_id: string; ca_id: string }[] = await this.db.query(
      'SELECT tenant_id::text, ca_id::text FROM revocation.crl_issuers WHERE ca_id = ANY($1::uuid[])',
      [caIds],
    );
    return rows.map((row) => ({ tenantId: row.tenant_id.toLowerCase(), caId: row.ca_id.toLowerCase() }));
  }

  async certificateOf(tenantId: string, caId: string): Promise<Buffer | undefined> {
    const rows: { ca_certificate_der: Buffer }[] = await this.db.query(
      'SELECT ca_certificate_der FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
      [tenantId, caId],
    );
    return rows[0]?.ca_certificate_der;
  }

  async lock(caId: string): Promise<void> {
    await this.db.query('SELECT 1 FROM revocation.crl_issuers WHERE ca_id = $1 FOR UPDATE', [caId]);
  }

  async countRemovals(caId: string, removed: number): Promise<void> {
    await this.db.query(
      'UPDATE revocation.crl_issuers SET entries_removed = entries_removed + $2 WHERE ca_id = $1',
      [caId, removed],
    );
  }

  async forBuild(caId: string): Promise<CrlIssuerForBuild | undefined> {
    const rows: { tenant_id: string; ca_certificate_der: Buffer; next_crl_number: string }[] =
      await this.db.query(
        'SELECT tenant_id, ca_certificate_der, next_crl_number FROM revocation.crl_issuers WHERE ca_id = $1',
        [caId],
      );
    if (rows.length === 0) return undefined;
    const [row] = rows;
    return {
      tenantId: row.tenant_id,
      certificateDer: row.ca_certificate_der,
      nextCrlNumber: BigInt(row.next_crl_number),
    };
  }

  async takeNumber(caId: string, crlNumber: bigint): Promise<boolean> {
    const updated: [unknown[], number] = await this.db.query(
      `UPDATE revocation.crl_issuers SET next_crl_number = next_crl_number + 1
        WHERE ca_id = $1 AND next_crl_number = $2`,
      [caId, crlNumber.toString()],
    );
    return updated[1] === 1;
  }

  async skipTo(caId: string, expected: bigint, next: bigint): Promise<void> {
    await this.db.query(
      'UPDATE revocation.crl_issuers SET next_crl_number = $3 WHERE ca_id = $1 AND next_crl_number = $2',
      [caId, expected.toString(), next.toString()],
    );
  }

  async dueBefore(before: Date): Promise<string[]> {
    const due: { ca_id: string }[] = await this.db.query(
      `SELECT i.ca_id FROM revocation.crl_issuers i
        LEFT JOIN LATERAL (SELECT next_update, entry_count FROM revocation.crls c
                            WHERE c.ca_id = i.ca_id ORDER BY crl_number DESC LIMIT 1) latest ON true
        WHERE i.ca_not_after > now()
          AND (latest.next_update IS NULL OR latest.next_update < $1
               OR latest.entry_count <> (SELECT count(*) FROM revocation.revoked_certificates r WHERE r.ca_id = i.ca_id))`,
      [before],
    );
    return due.map((row) => row.ca_id);
  }
}
