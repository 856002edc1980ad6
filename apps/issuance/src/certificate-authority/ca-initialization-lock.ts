import { CaError } from '@ca/contracts';
import { EntityManager } from 'typeorm';

export const ALREADY_EXISTS = 'This tenant already has a certificate authority; a tenant has at most one.';

/**
 * Serializes the initializations of one tenant's CAs until the caller's transaction ends, then
 * refuses when the tenant has a CA or a pending one (docs/api.md#external-root) already: the two
 * live in different tables, so no one unique constraint can keep an `ExternalRoot` and another
 * hierarchy started at the same moment from both succeeding.
 */
export async function lockCaInitialization(manager: EntityManager, tenantId: string): Promise<void> {
  await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('issuance.ca-initialize:' || $1, 0))", [
    tenantId,
  ]);
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM issuance.certificate_authorities WHERE tenant_id = $1
     UNION ALL SELECT 1 FROM issuance.pending_cas WHERE tenant_id = $1 LIMIT 1`,
    [tenantId],
  );
  if (rows.length > 0) throw CaError.conflict(ALREADY_EXISTS);
}
