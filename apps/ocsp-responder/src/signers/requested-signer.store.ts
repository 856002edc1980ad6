import type { DataSource } from 'typeorm';

/**
 * ocsp.requested_signers: the public keys (SHA-256, hex) this responder asked issuance to certify,
 * recorded before asking, so an announced signer of any other key is one no replica asked for.
 */
export abstract class RequestedSignerStore {
  /** Records that a signer for this key is about to be asked for (once per key). */
  abstract record(publicKeySha256: string, tenantId: string): Promise<void>;
  /** Whether this responder asked for a signer of this key for this tenant. */
  abstract wasRequested(publicKeySha256: string, tenantId: string): Promise<boolean>;
  /** Forgets requests older than any signer lives. */
  abstract forgetOld(): Promise<void>;
}

export class SqlRequestedSignerStore extends RequestedSignerStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async record(publicKeySha256: string, tenantId: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ocsp.requested_signers (public_key_sha256, tenant_id) VALUES ($1, $2)
       ON CONFLICT (public_key_sha256) DO NOTHING`,
      [publicKeySha256, tenantId],
    );
  }

  async wasRequested(publicKeySha256: string, tenantId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM ocsp.requested_signers WHERE public_key_sha256 = $1 AND tenant_id = $2',
      [publicKeySha256, tenantId],
    );
    return rows.length > 0;
  }

  async forgetOld(): Promise<void> {
    // Longer than any signer lives: a later announcement of such a key is not ours either way.
    await this.dataSource.query(
      "DELETE FROM ocsp.requested_signers WHERE requested_at < now() - interval '40 days'",
    );
  }
}
