import { EntityManager } from 'typeorm';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';

/** An issuing CA as a policy change sees it: what it carries and its key algorithm. */
export interface IssuingCaForPolicy {
  certificateDer: Buffer;
  keyAlgorithm: string;
}

/** `issuance.certificate_authorities`: each tenant's roots and issuing CAs. */
export abstract class CaStore {
  /**
   * The tenant's issuing CA that signs leaves now (not retired, revoked nor expired), unless its
   * root is a corporate one (docs/api.md#external-root).
   */
  abstract currentIssuingCaUnderOwnRoot(tenantId: string): Promise<IssuingCaForPolicy | undefined>;
}

export class SqlCaStore extends CaStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async currentIssuingCaUnderOwnRoot(tenantId: string): Promise<IssuingCaForPolicy | undefined> {
    const rows: { certificate_der: Buffer; key_algorithm: string }[] = await this.db.query(
      `SELECT certificate_der, key_algorithm FROM issuance.certificate_authorities
        WHERE tenant_id = $1 AND role = 'issuing' AND retired_at IS NULL
          AND revoked_at IS NULL AND not_after > now()
          AND NOT EXISTS (SELECT 1 FROM issuance.certificate_authorities root
                           WHERE root.tenant_id = $1 AND root.role = 'root' AND root.key_custody = $2)`,
      [tenantId, EXTERNAL_KEY_CUSTODY],
    );
    const row = rows[0];
    return row && { certificateDer: row.certificate_der, keyAlgorithm: row.key_algorithm };
  }
}
