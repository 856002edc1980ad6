import { EntityManager } from 'typeorm';

/**
 * The build lease on a CA's `revocation.crl_issuers` row (`build_lease_owner`,
 * `build_lease_until`, on the database clock): which replica builds the CA's CRL (CrlBuildLease).
 */
export abstract class CrlBuildLeaseStore {
  /** Takes the lease for `leaseMs` when it is free, lapsed or `owner`'s already; false otherwise. */
  abstract take(caId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Whether the CA is a CRL issuer at all (else there is no lease to wait for). */
  abstract issuerExists(caId: string): Promise<boolean>;
  /** Extends `owner`'s lease by `leaseMs` from now; nothing when it is no longer `owner`'s. */
  abstract renew(caId: string, owner: string, leaseMs: number): Promise<void>;
  /** Frees the lease if `owner` holds it. */
  abstract release(caId: string, owner: string): Promise<void>;
}

export class SqlCrlBuildLeaseStore extends CrlBuildLeaseStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async take(caId: string, owner: string, leaseMs: number): Promise<boolean> {
    const taken: [unknown[], number] = await this.db.query(
      `UPDATE revocation.crl_issuers
          SET build_lease_owner = $2, build_lease_until = now() + $3 * interval '1 millisecond'
        WHERE ca_id = $1
          AND (build_lease_until IS NULL OR build_lease_until < now() OR build_lease_owner = $2)`,
      [caId, owner, leaseMs],
    );
    return taken[1] === 1;
  }

  async issuerExists(caId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query('SELECT 1 FROM revocation.crl_issuers WHERE ca_id = $1', [
      caId,
    ]);
    return rows.length > 0;
  }

  async renew(caId: string, owner: string, leaseMs: number): Promise<void> {
    await this.db.query(
      `UPDATE revocation.crl_issuers SET build_lease_until = now() + $3 * interval '1 millisecond'
        WHERE ca_id = $1 AND build_lease_owner = $2`,
      [caId, owner, leaseMs],
    );
  }

  async release(caId: string, owner: string): Promise<void> {
    await this.db.query(
      `UPDATE revocation.crl_issuers SET build_lease_owner = NULL, build_lease_until = NULL
        WHERE ca_id = $1 AND build_lease_owner = $2`,
      [caId, owner],
    );
  }
}
