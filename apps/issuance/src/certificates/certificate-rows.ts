import { EntityManager } from 'typeorm';
import { CertificateEntity } from './certificate.entity';

export type NewCertificate = Omit<
  CertificateEntity,
  'revokedAt' | 'revocationReason' | 'revocationReasonCode' | 'revokedBy' | 'replaceAfter'
>;

const COLUMNS = `id, tenant_id, ca_id, serial_number, client_id, common_name, organization,
  organizational_unit, country, certificate_der, usage, dns_names, must_staple, custom_extensions,
  not_before, not_after, issued_at, renewed_from, issued_by, key_from_csr, source`;
const CASTS = [
  'uuid',
  'uuid',
  'uuid',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'bytea',
  'text',
  'text[]',
  'boolean',
  'jsonb',
  'timestamptz',
  'timestamptz',
  'timestamptz',
  'uuid',
  'text',
  'boolean',
  'text',
];

/**
 * Inserts certificate rows in one statement (a duplicate serial fails it as a whole with the
 * driver's unique violation). Must run in the transaction that also records their events.
 */
export async function insertCertificates(
  manager: EntityManager,
  certificates: readonly NewCertificate[],
): Promise<void> {
  if (certificates.length === 0) return;
  const rows = certificates.map(
    (_, row) => `(${CASTS.map((cast, column) => `$${row * CASTS.length + column + 1}::${cast}`).join(', ')})`,
  );
  await manager.query(
    `INSERT INTO issuance.certificates (${COLUMNS}) VALUES ${rows.join(', ')}`,
    certificates.flatMap((c) => [
      c.id,
      c.tenantId,
      c.caId,
      c.serialNumber,
      c.clientId,
      c.commonName,
      c.organization,
      c.organizationalUnit,
      c.country,
      c.certificateDer,
      c.usage,
      c.dnsNames,
      c.mustStaple,
      JSON.stringify(c.customExtensions), // not a PostgreSQL array: jsonb text
      c.notBefore,
      c.notAfter,
      c.issuedAt,
      c.renewedFrom,
      c.issuedBy,
      c.keyFromCsr,
      c.source,
    ]),
  );
}
