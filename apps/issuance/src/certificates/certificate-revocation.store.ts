import { EntityManager } from 'typeorm';
import { RevocationRecord } from '../revocation-record';
import { CertificateEntity } from './certificate.entity';

/** A certificate a batch revoked, as its event and key block need it. */
export interface BatchRevokedRow {
  id: string;
  caId: string;
  serialNumber: string;
  statusSequence: number;
  /** Read only when asked for (the reason blocks the key). */
  certificateDer?: Buffer;
}

/** The end of a certificateHold, as `issuance.hold_releases` keeps it. */
export interface HoldRelease {
  tenantId: string;
  certificateId: string;
  heldSince: Date;
  holdReason: string | null;
  releasedAt: Date;
  releasedBy: string;
  releaseReason: string | null;
}

/**
 * The revocation columns of `issuance.certificates`: one certificate revoked or released from
 * hold (with the hold's history in `issuance.hold_releases`), or a batch of one tenant's revoked
 * in a few statements. Each runs in the caller's transaction.
 */
export abstract class CertificateRevocationStore {
  /** Records the revocation on the tenant's certificate (its row locked by the caller). */
  abstract revoke(certificateId: string, tenantId: string, revocation: RevocationRecord): Promise<void>;
  /** Clears the revocation of a certificate on hold, and keeps the hold in its history. */
  abstract releaseHold(release: HoldRelease): Promise<void>;
  /**
   * Locks the tenant's certificates among `certificateIds`, in id order (as every batch locks
   * them, so two batches never wait on each other in a cycle); the ids of those not revoked yet.
   */
  abstract lockUnrevoked(tenantId: string, certificateIds: readonly string[]): Promise<Set<string>>;
  /**
   * Revokes those still unrevoked and moves each one's status sequence on, in one statement;
   * the rows it changed, with their DER when `withDer`.
   */
  abstract revokeBatch(
    tenantId: string,
    certificateIds: readonly string[],
    revocation: RevocationRecord,
    withDer: boolean,
  ): Promise<BatchRevokedRow[]>;
}

export class SqlCertificateRevocationStore extends CertificateRevocationStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async revoke(certificateId: string, tenantId: string, revocation: RevocationRecord): Promise<void> {
    // Filtered by tenant too, although the row was read (and locked) for this tenant: defence in depth.
    await this.db.update(CertificateEntity, { id: certificateId, tenantId }, revocation);
  }

  async releaseHold(release: HoldRelease): Promise<void> {
    await this.db.update(
      CertificateEntity,
      { id: release.certificateId, tenantId: release.tenantId },
      { revokedAt: null, revocationReason: null, revocationReasonCode: null },
    );
    await this.db.query(
      `INSERT INTO issuance.hold_releases
           (tenant_id, certificate_id, held_since, hold_reason, released_at, released_by, release_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        release.tenantId,
        release.certificateId,
        release.heldSince,
        release.holdReason,
        release.releasedAt,
        release.releasedBy,
        release.releaseReason,
      ],
    );
  }

  async lockUnrevoked(tenantId: string, certificateIds: readonly string[]): Promise<Set<string>> {
    const rows: { id: string; revoked: boolean }[] = await this.db.query(
      `SELECT id, revoked_at IS NOT NULL AS revoked FROM issuance.certificates
      WHERE id = ANY($1::uuid[]) AND tenant_id = $2 ORDER BY id FOR UPDATE`,
      [certificateIds, tenantId],
    );
    return new Set(rows.filter((r) => !r.revoked).map((r) => r.id));
  }

  async revokeBatch(
    tenantId: string,
    certificateIds: readonly string[],
    revocation: RevocationRecord,
    withDer: boolean,
  ): Promise<BatchRevokedRow[]> {
    const [changed]: [
      {
        id: string;
        ca_id: string;
        serial_number: string;
        status_sequence: number;
        certificate_der?: Buffer;
      }[],
      number,
    ] = await this.db.query(
      `UPDATE issuance.certificates
        SET revoked_at = $3, revocation_reason = $4, revocation_reason_code = $5, revoked_by = $6,
            status_sequence = status_sequence + 1
      WHERE id = ANY($1::uuid[]) AND tenant_id = $2 AND revoked_at IS NULL
      RETURNING id, ca_id, serial_number, status_sequence${withDer ? ', certificate_der' : ''}`,
      [
        certificateIds,
        tenantId,
        revocation.revokedAt,
        revocation.revocationReason,
        revocation.revocationReasonCode,
        revocation.revokedBy,
      ],
    );
    return changed.map((row) => ({
      id: row.id,
      caId: row.ca_id,
      serialNumber: row.serial_number,
      statusSequence: Number(row.status_sequence),
      ...(row.certificate_der ? { certificateDer: row.certificate_der } : {}),
    }));
  }
}
