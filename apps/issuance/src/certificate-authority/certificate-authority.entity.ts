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

  /**
   * Set when a newer issuing CA replaced this one (docs/api.md#add-an-issuing-ca): it signs no new
   * leaf, but still its CRL and OCSP signers for the leaves it signed.
   */
  @Column('timestamptz', { name: 'retired_at', nullable: true })
  retiredAt!: Date | null;

  /**
   * Whether leaves point at this CA's own CRL and certificate paths (a CA added by
   * POST /v2/ca/issuing) rather than the tenant's `/crl` (docs/api.md#distribution-points).
   */
  @Column('boolean', { name: 'own_distribution_points', default: false })
  ownDistributionPoints!: boolean;

  /**
   * PEM of the CAs between this issuing CA and a corporate root (docs/api.md#external-root), its
   * issuer first; null when the root signed it directly or is ours.
   */
  @Column('text', { name: 'external_intermediates_pem', nullable: true })
  externalIntermediatesPem!: string | null;
  /** On a root made by renewal (docs/api.md#renew-the-root): the root it replaced. */
  @Column('uuid', { name: 'previous_root_ca_id', nullable: true })
  previousRootCaId!: string | null;

  /** With `previousRootCaId`: this root's subject and key signed by that root (the cross certificate). */
  @Column('bytea', { name: 'cross_certificate_der', nullable: true })
  crossCertificateDer!: Buffer | null;

  /** The principal whose command created the CA; null on older rows. */
  @Column('text', { name: 'created_by', nullable: true })
  createdBy!: string | null;
}
