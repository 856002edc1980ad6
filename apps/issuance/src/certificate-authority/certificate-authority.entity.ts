import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

/** A tenant's root CA: its certificate and its key as custody stored it (never in plaintext). */
@Entity({ schema: ISSUANCE_SCHEMA, name: 'certificate_authorities' })
export class CertificateAuthorityEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'tenant_id', unique: true })
  tenantId!: string;

  @Column('text', { name: 'common_name' })
  commonName!: string;

  @Column('text')
  organization!: string;

  @Column('text')
  country!: string;

  @Column('text', { name: 'serial_number' })
  serialNumber!: string;

  @Column('bytea', { name: 'certificate_der' })
  certificateDer!: Buffer;

  @Column('timestamptz', { name: 'not_before' })
  notBefore!: Date;

  @Column('timestamptz', { name: 'not_after' })
  notAfter!: Date;

  @Column('text', { name: 'key_custody' })
  keyCustody!: string;

  @Column('text', { name: 'key_algorithm' })
  keyAlgorithm!: string;

  @Column('bytea', { name: 'public_key_spki' })
  publicKeySpki!: Buffer;

  @Column('bytea', { name: 'wrapped_key' })
  wrappedKey!: Buffer;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  /** The principal whose command created the CA; null on older rows. */
  @Column('text', { name: 'created_by', nullable: true })
  createdBy!: string | null;
}
