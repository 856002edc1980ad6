import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

/** `key_custody` of a root held outside (docs/api.md#external-root): its certificate only, no key. */
export const EXTERNAL_KEY_CUSTODY = 'external';

/**
 * An issuing CA made by `ExternalRoot` (docs/api.md#external-root) that waits for its certificate
 * from the tenant's corporate root: its key as custody stored it and the CSR to have signed. Its
 * id is the CA's id, then and once active.
 */
@Entity({ schema: ISSUANCE_SCHEMA, name: 'pending_cas' })
export class PendingCaEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('text', { name: 'common_name' })
  commonName!: string;

  @Column('text')
  organization!: string;

  @Column('text')
  country!: string;

  @Column('text', { name: 'key_custody' })
  keyCustody!: string;

  @Column('text', { name: 'key_algorithm' })
  keyAlgorithm!: string;

  @Column('bytea', { name: 'public_key_spki' })
  publicKeySpki!: Buffer;

  @Column('bytea', { name: 'wrapped_key' })
  wrappedKey!: Buffer;

  @Column('bytea', { name: 'csr_der' })
  csrDer!: Buffer;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('text', { name: 'created_by', nullable: true })
  createdBy!: string | null;
}
