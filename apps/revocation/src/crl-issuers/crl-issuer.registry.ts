import { CaInitializedPayload, EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';

/**
 * Registers every tenant CA as a CRL issuer when `ca.initialized` arrives: the starting point of
 * its CRL number sequence and of the CRLs the revocation context will build for it.
 */
export class CrlIssuerRegistry {
  constructor(private readonly dataSource: DataSource) {}

  async apply(event: EventEnvelope<CaInitializedPayload>): Promise<void> {
    const { tenantId, caId, notAfter } = event.payload;
    await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_not_after) VALUES ($1, $2, $3)
         ON CONFLICT (tenant_id) DO NOTHING`,
        [tenantId, caId, notAfter],
      );
    });
  }

  async isRegistered(tenantId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM revocation.crl_issuers WHERE tenant_id = $1',
      [tenantId],
    );
    return rows.length > 0;
  }
}
