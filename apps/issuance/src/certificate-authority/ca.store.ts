import { CaRole } from '@ca/contracts';
import { EntityManager, IsNull } from 'typeorm';
import { RevocationRecord } from '../revocation-record';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';

/** An issuing CA as a policy change sees it: what it carries and its key algorithm. */
export interface IssuingCaForPolicy {
  certificateDer: Buffer;
  keyAlgorithm: string;
}

/** A CA row to insert (the columns with defaults may be left out). */
export type NewCa = Omit<
  CertificateAuthorityEntity,
  | 'revokedAt'
  | 'revocationReason'
  | 'revocationReasonCode'
  | 'revokedBy'
  | 'retiredAt'
  | 'ownDistributionPoints'
  | 'externalIntermediatesPem'
  | 'previousRootCaId'
  | 'crossCertificateDer'
> &
  Partial<CertificateAuthorityEntity>;

/** A root with what revoking its cross certificate needs (docs/api.md#revoke-a-cross-certificate). */
/** Where an issuing CA's chain starts: its certificate, its issuer, a corporate root's intermediates. */
export interface IssuingChainStart {
  certificateDer: Buffer;
  issuerCaId: string | null;
  externalIntermediatesPem: string | null;
}

export interface RenewedRoot {
  id: string;
  role: string;
  serialNumber: string;
  previousRootCaId: string | null;
  crossCertificateDer: Buffer | null;
  crossRevokedAt: Date | null;
}

/**
 * `issuance.certificate_authorities`: each tenant's roots and issuing CAs. A method that locks
 * holds its row until the caller's transaction ends.
 */
export abstract class CaStore {
  /**
   * Serializes the initializations of one tenant's CAs until the transaction ends; returns whether
   * the tenant has a CA or a pending one (`issuance.pending_cas`) already.
   */
  abstract lockInitialization(tenantId: string): Promise<boolean>;
  abstract hasAny(tenantId: string): Promise<boolean>;
  abstract hasOfTenant(tenantId: string, caId: string): Promise<boolean>;
  /** Whether the tenant's root is a corporate root (docs/api.md#external-root). */
  abstract rootHeldOutside(tenantId: string): Promise<boolean>;
  /** The tenant's CAs, oldest first. */
  abstract ofTenant(tenantId: string): Promise<CertificateAuthorityEntity[]>;
  /** The tenant's issuing CAs, oldest first. */
  abstract issuingOf(tenantId: string): Promise<CertificateAuthorityEntity[]>;
  abstract byId(caId: string): Promise<CertificateAuthorityEntity | null>;
  abstract byIdOfTenant(caId: string, tenantId: string): Promise<CertificateAuthorityEntity | null>;
  /** The CA, locked (only the tenant's when `tenantId` is given). */
  abstract lock(caId: string, tenantId?: string): Promise<CertificateAuthorityEntity | null>;
  /** The tenant's first recorded root, locked. */
  abstract lockRoot(tenantId: string): Promise<CertificateAuthorityEntity | null>;
  /** The root not retired. */
  abstract currentRoot(tenantId: string): Promise<CertificateAuthorityEntity | null>;
  /** The issuing CA not retired. */
  abstract currentIssuing(tenantId: string): Promise<CertificateAuthorityEntity | null>;
  abstract countIssuing(tenantId: string): Promise<number>;
  /** The id of the root not retired (`current`), or of the tenant's first root (`first`). */
  abstract rootId(tenantId: string, which: 'current' | 'first'): Promise<string | undefined>;
  /** Whether leaves point at the CA's own CRL and certificate paths. */
  abstract hasOwnDistributionPoints(caId: string): Promise<boolean>;
  /** The CA that signs leaves now: the issuing CA not retired, else the root. */
  abstract signingLeaves(tenantId: string): Promise<{ id: string; revokedAt: Date | null } | undefined>;
  /** A root's cross certificate and the root it replaced (docs/api.md#renew-the-root). */
  abstract crossLink(
    caId: string,
  ): Promise<{ crossCertificateDer: Buffer | null; previousRootCaId: string | null } | undefined>;
  /** An issuing CA's certificate and what its chain is made of (cross-chain.ts); undefined for a root. */
  abstract issuingChainStart(caId: string): Promise<IssuingChainStart | undefined>;
  /**
   * The tenant's issuing CA that signs leaves now (not retired, revoked nor expired), unless its
   * root is a corporate one (docs/api.md#external-root).
   */
  abstract currentIssuingCaUnderOwnRoot(tenantId: string): Promise<IssuingCaForPolicy | undefined>;
  /** The tenant's root `caId`, locked. */
  abstract lockRenewedRoot(caId: string, tenantId: string): Promise<RenewedRoot | undefined>;
  abstract insert(row: NewCa): Promise<void>;
  abstract retire(caId: string, retiredAt: Date): Promise<void>;
  /** From now on leaves point at the CA's own CRL and certificate paths. */
  abstract useOwnDistributionPoints(caId: string): Promise<void>;
  /** Retires a renewed root; one that signed leaves itself keeps its own paths. */
  abstract retireRoot(caId: string, retiredAt: Date, ownDistributionPoints: boolean): Promise<void>;
  abstract revoke(caId: string, tenantId: string, revocation: RevocationRecord): Promise<void>;
  abstract revokeCross(
    caId: string,
    tenantId: string,
    crossSerialNumber: string,
    revocation: RevocationRecord,
  ): Promise<void>;
}

export class SqlCaStore extends CaStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  private get repository() {
    return this.db.getRepository(CertificateAuthorityEntity);
  }

  async lockInitialization(tenantId: string): Promise<boolean> {
    await this.db.query(
      "SELECT pg_advisory_xact_lock(hashtextextended('issuance.ca-initialize:' || $1, 0))",
      [tenantId],
    );
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM issuance.certificate_authorities WHERE tenant_id = $1
     UNION ALL SELECT 1 FROM issuance.pending_cas WHERE tenant_id = $1 LIMIT 1`,
      [tenantId],
    );
    return rows.length > 0;
  }

  hasAny(tenantId: string): Promise<boolean> {
    return this.repository.exists({ where: { tenantId } });
  }

  hasOfTenant(tenantId: string, caId: string): Promise<boolean> {
    return this.db.exists(CertificateAuthorityEntity, { where: { id: caId, tenantId } });
  }

  rootHeldOutside(tenantId: string): Promise<boolean> {
    return this.repository.exists({
      where: { tenantId, role: CaRole.Root, keyCustody: EXTERNAL_KEY_CUSTODY },
    });
  }

  ofTenant(tenantId: string): Promise<CertificateAuthorityEntity[]> {
    return this.repository.find({ where: { tenantId }, order: { createdAt: 'ASC' } });
  }

  issuingOf(tenantId: string): Promise<CertificateAuthorityEntity[]> {
    return this.repository.find({
      where: { tenantId, role: CaRole.Issuing },
      order: { createdAt: 'ASC' },
    });
  }

  byId(caId: string): Promise<CertificateAuthorityEntity | null> {
    return this.repository.findOneBy({ id: caId });
  }

  byIdOfTenant(caId: string, tenantId: string): Promise<CertificateAuthorityEntity | null> {
    return this.repository.findOneBy({ id: caId, tenantId });
  }

  lock(caId: string, tenantId?: string): Promise<CertificateAuthorityEntity | null> {
    return this.repository.findOne({
      where: tenantId === undefined ? { id: caId } : { id: caId, tenantId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  lockRoot(tenantId: string): Promise<CertificateAuthorityEntity | null> {
    return this.db.findOne(CertificateAuthorityEntity, {
      where: { tenantId, role: CaRole.Root },
      lock: { mode: 'pessimistic_write' },
    });
  }

  currentRoot(tenantId: string): Promise<CertificateAuthorityEntity | null> {
    return this.repository.findOne({ where: { tenantId, role: CaRole.Root, retiredAt: IsNull() } });
  }

  currentIssuing(tenantId: string): Promise<CertificateAuthorityEntity | null> {
    return this.repository.findOneBy({ tenantId, role: CaRole.Issuing, retiredAt: IsNull() });
  }

  countIssuing(tenantId: string): Promise<number> {
    return this.repository.countBy({ tenantId, role: CaRole.Issuing });
  }

  async rootId(tenantId: string, which: 'current' | 'first'): Promise<string | undefined> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM issuance.certificate_authorities WHERE tenant_id = $1 AND role = 'root'
        ORDER BY ${which === 'current' ? '(retired_at IS NULL) DESC, created_at DESC' : 'created_at ASC'} LIMIT 1`,
      [tenantId],
    );
    return rows[0]?.id;
  }

  async hasOwnDistributionPoints(caId: string): Promise<boolean> {
    const rows: { own_distribution_points: boolean }[] = await this.db.query(
      'SELECT own_distribution_points FROM issuance.certificate_authorities WHERE id = $1',
      [caId],
    );
    return rows[0]?.own_distribution_points === true;
  }

  async signingLeaves(tenantId: string): Promise<{ id: string; revokedAt: Date | null } | undefined> {
    const rows: { id: string; revoked_at: Date | null }[] = await this.db.query(
      `SELECT id, revoked_at FROM issuance.certificate_authorities
        WHERE tenant_id = $1 AND retired_at IS NULL ORDER BY (role = 'issuing') DESC LIMIT 1`,
      [tenantId],
    );
    return rows[0] && { id: rows[0].id, revokedAt: rows[0].revoked_at };
  }

  async crossLink(
    caId: string,
  ): Promise<{ crossCertificateDer: Buffer | null; previousRootCaId: string | null } | undefined> {
    const rows: { cross_certificate_der: Buffer | null; previous_root_ca_id: string | null }[] =
      await this.db.query(
        'SELECT cross_certificate_der, previous_root_ca_id FROM issuance.certificate_authorities WHERE id = $1',
        [caId],
      );
    const row = rows[0];
    return (
      row && { crossCertificateDer: row.cross_certificate_der, previousRootCaId: row.previous_root_ca_id }
    );
  }

  async issuingChainStart(caId: string): Promise<IssuingChainStart | undefined> {
    const rows: {
      certificate_der: Buffer;
      issuer_ca_id: string | null;
      external_intermediates_pem: string | null;
    }[] = await this.db.query(
      `SELECT certificate_der, issuer_ca_id, external_intermediates_pem FROM issuance.certificate_authorities
        WHERE id = $1 AND role = 'issuing'`,
      [caId],
    );
    const row = rows[0];
    return (
      row && {
        certificateDer: row.certificate_der,
        issuerCaId: row.issuer_ca_id,
        externalIntermediatesPem: row.external_intermediates_pem,
      }
    );
  }

  async currentIssuingCaUnderOwnRoot(tenantId: string): Promise<IssuingCaForPolicy | undefined> {
    const rows: { certificate_der: Buffer; key_algorithm: string }[] = await this.db.query(
      `SELECT certificate_der, key_algorithm FROM issuance.certificate_authorities
        WHERE tenant_id = $1 AND role = 'issuing' AND retired_at IS NULL
          AND revoked_at IS NULL AND not_after > now()
          AND NOT EXISTS (SELECT 1 FROM issuance.certificate_authorities root
                           WHERE root.tenant_id = $1 AND root.role = 'root' AND root.key_custody = $2)`,
      [tenantId, EXTERNAL_KEY_CUSTODY],
    );
    const row = rows[0];
    return row && { certificateDer: row.certificate_der, keyAlgorithm: row.key_algorithm };
  }

  async lockRenewedRoot(caId: string, tenantId: string): Promise<RenewedRoot | undefined> {
    const rows: {
      id: string;
      role: string;
      serial_number: string;
      previous_root_ca_id: string | null;
      cross_certificate_der: Buffer | null;
      cross_revoked_at: Date | null;
    }[] = await this.db.query(
      `SELECT id, role, serial_number, previous_root_ca_id, cross_certificate_der, cross_revoked_at
           FROM issuance.certificate_authorities WHERE id = $1 AND tenant_id = $2 FOR UPDATE`,
      [caId, tenantId],
    );
    const row = rows[0];
    return (
      row && {
        id: row.id,
        role: row.role,
        serialNumber: row.serial_number,
        previousRootCaId: row.previous_root_ca_id,
        crossCertificateDer: row.cross_certificate_der,
        crossRevokedAt: row.cross_revoked_at,
      }
    );
  }

  async insert(row: NewCa): Promise<void> {
    await this.db.insert(CertificateAuthorityEntity, row);
  }

  async retire(caId: string, retiredAt: Date): Promise<void> {
    await this.repository.update({ id: caId }, { retiredAt });
  }

  async useOwnDistributionPoints(caId: string): Promise<void> {
    await this.repository.update({ id: caId }, { ownDistributionPoints: true });
  }

  async retireRoot(caId: string, retiredAt: Date, ownDistributionPoints: boolean): Promise<void> {
    await this.repository.update(
      { id: caId },
      { retiredAt, ...(ownDistributionPoints ? { ownDistributionPoints: true } : {}) },
    );
  }

  async revoke(caId: string, tenantId: string, revocation: RevocationRecord): Promise<void> {
    await this.db.update(CertificateAuthorityEntity, { id: caId, tenantId }, revocation);
  }

  async revokeCross(
    caId: string,
    tenantId: string,
    crossSerialNumber: string,
    revocation: RevocationRecord,
  ): Promise<void> {
    await this.db.query(
      `UPDATE issuance.certificate_authorities
            SET cross_serial_number = $3, cross_revoked_at = $4, cross_revocation_reason = $5,
                cross_revocation_reason_code = $6, cross_revoked_by = $7
          WHERE id = $1 AND tenant_id = $2`,
      [
        caId,
        tenantId,
        crossSerialNumber,
        revocation.revokedAt,
        revocation.revocationReason,
        revocation.revocationReasonCode,
        revocation.revokedBy,
      ],
    );
  }
}
