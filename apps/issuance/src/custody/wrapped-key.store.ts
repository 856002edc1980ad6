import { EntityManager } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { PendingCaEntity } from '../certificate-authority/pending-ca.entity';

/** The two tables whose rows hold a CA key as custody wrapped it. */
export type WrappedKeyTable = 'certificate_authorities' | 'pending_cas';

/** A CA key as custody stored it, on a CA row or a pending CA row. */
export type WrappedKeyRow = Pick<
  CertificateAuthorityEntity,
  'id' | 'tenantId' | 'keyAlgorithm' | 'publicKeySpki' | 'wrappedKey'
>;

const ENTITIES = { certificate_authorities: CertificateAuthorityEntity, pending_cas: PendingCaEntity };

/** The `KEY_CUSTODY=local` keys of every tenant's CAs and pending CAs, for a KEK rotation. */
export abstract class WrappedKeyStore {
  /** The table's local keys, locked until the transaction ends, by id. */
  abstract lockLocal(table: WrappedKeyTable): Promise<WrappedKeyRow[]>;
  abstract replace(table: WrappedKeyTable, id: string, wrapped: Buffer): Promise<void>;
}

export class SqlWrappedKeyStore extends WrappedKeyStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  lockLocal(table: WrappedKeyTable): Promise<WrappedKeyRow[]> {
    return this.db.find(ENTITIES[table], {
      where: { keyCustody: 'local' },
      lock: { mode: 'pessimistic_write' },
      order: { id: 'ASC' },
    });
  }

  async replace(table: WrappedKeyTable, id: string, wrapped: Buffer): Promise<void> {
    await this.db.update(ENTITIES[table], { id }, { wrappedKey: wrapped });
  }
}
