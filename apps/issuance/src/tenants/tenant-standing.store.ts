import { TenantUpdatedPayload } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** A tenant's standing as the gateway last stated it (`tenant.updated`). */
export type TenantStanding = TenantUpdatedPayload;

/**
 * `issuance.tenants`: the newest `tenant.updated` of each tenant, which issue and renew enforce
 * themselves (certificate-limit.ts).
 */
export abstract class TenantStandingStore {
  /**
   * Keeps `standing` unless the stored one is newer; a stored one dated more than `maxSkewMs`
   * ahead of the database's clock loses to it.
   */
  abstract record(standing: TenantStanding, maxSkewMs: number): Promise<void>;
}

export class SqlTenantStandingStore extends TenantStandingStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async record(
    { tenantId, status, certificateLimit, updatedAt }: TenantStanding,
    maxSkewMs: number,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.tenants AS t (tenant_id, status, certificate_limit, updated_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id) DO UPDATE
           SET status = EXCLUDED.status, certificate_limit = EXCLUDED.certificate_limit,
               updated_at = EXCLUDED.updated_at
         WHERE t.updated_at <= EXCLUDED.updated_at OR t.updated_at > now() + $5 * interval '1 millisecond'`,
      [tenantId, status, certificateLimit, updatedAt, maxSkewMs],
    );
  }
}
