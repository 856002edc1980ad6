import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { CaRole } from '@ca/contracts';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

/**
 * One of a tenant's CAs (docs/api.md#initialize-the-ca-v2): its root, or the issuing CA under it
 * that signs leaves; its certificate and its key as custody stored it (never in plaintext).
 */
@Entity({ schema: ISSUANCE_SCHEMA, name: 'certificate_authorities' })
export class CertificateAuthorityEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('text', { default: 'root' })
  role!: CaRole;

  /** The CA that signed this one; null for a root. */
  @Column('uuid', { name: 'issuer_ca_id', nullable: true })
  issuerCaId!: string | null;

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

  /** Set once an operator revoked this issuing CA (docs/api.md#revoke-an-issuing-ca). */
  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  @Column('text', { name: 'revocation_reason', nullable: true })
  revocationReason!: string | null;

  @Column('smallint', { name: 'revocation_reason_code', nullable: true })
  revocationReasonCode!: number | null;

  @Column('text', { name: 'revoked_by', nullable: true })
  revokedBy!: string | null;

  /** The principal whose command created the CA; null on older rows. */
  @Column('text', { name: 'created_by', nullable: true })
  createdBy!: string | null;
}
