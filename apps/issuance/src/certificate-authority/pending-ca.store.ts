import { EntityManager } from 'typeorm';
import { PendingCaEntity } from './pending-ca.entity';

/**
 * `issuance.pending_cas`: issuing CAs waiting for their certificate from a corporate root
 * (docs/api.md#external-root), at most one per tenant.
 */
export abstract class PendingCaStore {
  abstract exists(tenantId: string): Promise<boolean>;
  /** Whether the tenant's CA waits for its certificate (the signer's check). */
  abstract waits(tenantId: string): Promise<boolean>;
  /** The tenant's pending CA, if any. */
  abstract ofTenant(tenantId: string): Promise<PendingCaEntity | null>;
  /** The tenant's pending CAs (one at most), for the list of CAs. */
  abstract listOf(tenantId: string): Promise<PendingCaEntity[]>;
  /** The tenant's pending CA `caId`, locked until the transaction ends. */
  abstract lock(caId: string, tenantId: string): Promise<PendingCaEntity | null>;
  abstract insert(row: PendingCaEntity): Promise<void>;
  abstract remove(caId: string): Promise<void>;
}

export class SqlPendingCaStore extends PendingCaStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  exists(tenantId: string): Promise<boolean> {
    return this.db.getRepository(PendingCaEntity).exists({ where: { tenantId } });
  }

  async waits(tenantId: string): Promise<boolean> {
    const pending: unknown[] = await this.db.query(
      'SELECT 1 FROM issuance.pending_cas WHERE tenant_id = $1',
      [tenantId],
    );
    return pending.length > 0;
  }

  ofTenant(tenantId: string): Promise<PendingCaEntity | null> {
    return this.db.findOneBy(PendingCaEntity, { tenantId });
  }

  listOf(tenantId: string): Promise<PendingCaEntity[]> {
    return this.db.getRepository(PendingCaEntity).findBy({ tenantId });
  }

  lock(caId: string, tenantId: string): Promise<PendingCaEntity | null> {
    return this.db.findOne(PendingCaEntity, {
      where: { id: caId, tenantId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async insert(row: PendingCaEntity): Promise<void> {
    await this.db.insert(PendingCaEntity, row);
  }

  async remove(caId: string): Promise<void> {
    await this.db.delete(PendingCaEntity, { id: caId });
  }
}
