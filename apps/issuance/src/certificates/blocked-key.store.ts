import { EntityManager } from 'typeorm';

/** `issuance.blocked_keys`: per tenant, the keys (SPKI SHA-256) of certificates revoked for keyCompromise. */
export abstract class BlockedKeyStore {
  /** Blocks the key of `certificateId`; a key blocked already stays as it is. */
  abstract block(tenantId: string, spkiSha256: Buffer, certificateId: string): Promise<void>;
  abstract isBlocked(tenantId: string, spkiSha256: Buffer): Promise<boolean>;
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

  async isBlocked(tenantId: string, spkiSha256: Buffer): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      'SELECT 1 FROM issuance.blocked_keys WHERE tenant_id = $1 AND spki_sha256 = $2',
      [tenantId, spkiSha256],
    );
    return rows.length > 0;
  }
}
