import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/** How long a nonce may wait for its request (RFC 8555 6.5 leaves it to the server). */
export const NONCE_LIFETIME_MS = 60 * 60 * 1000;

/**
 * Replay nonces (RFC 8555 6.5) in the acme schema, so every replica accepts the nonces of the
 * others: each is taken once, by deleting it; an expired one is refused and later pruned.
 */
export class NonceStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lifetimeMs = NONCE_LIFETIME_MS,
    /** The clock (tests move it forward). */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A new nonce, good for requests under `tenantId` only. */
  async issue(tenantId: string): Promise<string> {
    const value = randomBytes(16).toString('base64url');
    await this.dataSource.query(
      'INSERT INTO acme.nonces (value, expires_at, tenant_id) VALUES ($1, $2, $3)',
      [value, new Date(this.now().getTime() + this.lifetimeMs), tenantId],
    );
    return value;
  }

  /**
   * True once for a nonce this server issued under `tenantId` and that has not expired. Another
   * tenant's nonce is refused and left for its own tenant.
   */
  async consume(tenantId: string, value: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) return false;
    const [rows] = (await this.dataSource.query(
      'DELETE FROM acme.nonces WHERE value = $1 AND tenant_id = $2 AND expires_at > $3 RETURNING value',
      [value, tenantId, this.now()],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  async prune(): Promise<number> {
    const [, count] = (await this.dataSource.query('DELETE FROM acme.nonces WHERE expires_at <= $1', [
      this.now(),
    ])) as [unknown[], number];
    return count;
  }
}
