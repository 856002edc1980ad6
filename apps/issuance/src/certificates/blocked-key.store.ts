import { EntityManager } from 'typeorm';

/**
 * `issuance.blocked_keys`: per tenant, the keys (SPKI SHA-256) of certificates revoked for
 * keyCompromise. A new certificate's key is looked up with its other checks (MintFactsStore).
 */
export abstract class BlockedKeyStore {
  /** Blocks the key of `certificateId`; a key blocked already stays as it is. */
  abstract block(tenantId: string, spkiSha256: Buffer, certificateId: string): Promise<void>;
}

export class SqlBlockedKeyStore extends BlockedKeyStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async block(tenantId: string, spkiSha256: Buffer, certificateId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.blocked_keys (tenant_id, spki_sha256, certificate_id) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING`,
      [tenantId, spkiSha256, certificateId],
    );
  }
}
