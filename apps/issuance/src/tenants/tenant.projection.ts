import { EventEnvelope, TenantUpdatedPayload } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

/** The durable consumer through which issuance learns the gateway's tenant facts. */
export const ISSUANCE_CONSUMER = 'issuance';

/**
 * issuance.tenants: the newest `tenant.updated` of each tenant (status and effective plan limit),
 * which issue and renew enforce themselves (certificate-limit.ts) instead of trusting a command.
 * Each event is applied once (inbox); an older fact never overwrites a newer one (`updatedAt`, the
 * gateway's change time), so a late redelivery cannot resume a suspended tenant.
 */
export class TenantProjection {
  constructor(private readonly dataSource: DataSource) {}

  async apply(event: EventEnvelope<TenantUpdatedPayload>): Promise<void> {
    const { tenantId, status, certificateLimit, updatedAt } = event.payload;
    await applyOnce(this.dataSource, ISSUANCE_SCHEMA, event, (manager) =>
      manager.query(
        `INSERT INTO issuance.tenants AS t (tenant_id, status, certificate_limit, updated_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id) DO UPDATE
           SET status = EXCLUDED.status, certificate_limit = EXCLUDED.certificate_limit,
               updated_at = EXCLUDED.updated_at
         WHERE t.updated_at <= EXCLUDED.updated_at`,
        [tenantId, status, certificateLimit, updatedAt],
      ),
    );
  }
}
