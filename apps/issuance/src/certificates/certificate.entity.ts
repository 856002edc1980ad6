import { CertificateSource } from '@ca/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

/** An issued certificate and its lifecycle facts. Never holds the subject's private key. */
@Entity({ schema: ISSUANCE_SCHEMA, name: 'certificates' })
export class CertificateEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('uuid', { name: 'ca_id' })
  caId!: string;

  @Column('text', { name: 'serial_number' })
  serialNumber!: string;

  @Column('text', { name: 'client_id' })
  clientId!: string;

  @Column('text', { name: 'common_name' })
  commonName!: string;

  @Column('text')
  organization!: string;

  @Column('text', { name: 'organizational_unit' })
  organizationalUnit!: string;

  @Column('text')
  country!: string;

  @Column('bytea', { name: 'certificate_der' })
  certificateDer!: Buffer;

  /** docs/api.md#issue-a-certificate-v2 usage: Client, Server or ClientAndServer (v1 certificates are Client). */
  @Column('text')
  usage!: string;

  @Column('text', { name: 'dns_names', array: true })
  dnsNames!: string[];

  @Column('boolean', { name: 'must_staple' })
  mustStaple!: boolean;

  /** Custom extensions in certificate order: `.1`, `.2`, … under the custom arc. */
  @Column('jsonb', { name: 'custom_extensions' })
  customExtensions!: { key: string; value: string }[];

  @Column('timestamptz', { name: 'not_before' })
  notBefore!: Date;

  @Column('timestamptz', { name: 'not_after' })
  notAfter!: Date;

  @Column('timestamptz', { name: 'issued_at' })
  issuedAt!: Date;

  @Column('uuid', { name: 'renewed_from', nullable: true })
  renewedFrom!: string | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  @Column('text', { name: 'revocation_reason', nullable: true })
  revocationReason!: string | null;

  @Column('smallint', { name: 'revocation_reason_code', nullable: true })
  revocationReasonCode!: number | null;

  /** The principal whose command issued (or renewed into) this certificate; null on older rows. */
  @Column('text', { name: 'issued_by', nullable: true })
  issuedBy!: string | null;

  /** Issued for the caller's CSR: the CA never had its key, so it is renewed with a CSR only. */
  @Column('boolean', { name: 'key_from_csr', default: false })
  keyFromCsr!: boolean;

  /** docs/api.md#search-certificates source: api (the service made the key), csr or acme. */
  @Column('text', { default: 'api' })
  source!: CertificateSource;

  /** docs/api.md#replace-now: when the tenant asked for it to be replaced; its ARI window ends there. */
  @Column('timestamptz', { name: 'replace_after', nullable: true })
  replaceAfter!: Date | null;

  /** The principal whose command revoked it. */
  @Column('text', { name: 'revoked_by', nullable: true })
  revokedBy!: string | null;
}
