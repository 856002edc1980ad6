import { CaError, ErrorCode } from '@ca/contracts';
import { EntityManager } from 'typeorm';
import { CertificateEntity } from './certificate.entity';

/** First key of the two-key advisory lock, so the tenant's hash cannot meet another lock's key. */
const CERTIFICATE_LIMIT_LOCK_SPACE = 0x63_65_72_74; // "cert"

/** CONTRACT section 5: the plan limit counts the tenant's Active certificates (not revoked, not expired). */
const activeCount = (tenantParameter: string) => `SELECT count(*)::int AS count FROM issuance.certificates
  WHERE tenant_id = ${tenantParameter}::uuid AND revoked_at IS NULL AND not_after > now()`;

// The certificate row, inserted only while the tenant is below its limit ($19; NULL: no limit).
// One statement instead of a count and then an insert: one round trip fewer per issuance.
const INSERT_WITHIN_LIMIT = `INSERT INTO issuance.certificates (id, tenant_id, ca_id, serial_number,
    client_id, common_name, organization, organizational_unit, country, certificate_der, usage,
    dns_names, must_staple, custom_extensions, not_before, not_after, issued_at, renewed_from)
  SELECT $1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text,
    $10::bytea, $11::text, $12::text[], $13::boolean, $14::jsonb, $15::timestamptz,
    $16::timestamptz, $17::timestamptz, $18::uuid
  WHERE $19::int IS NULL OR (${activeCount('$2')}) < $19::int
  RETURNING id`;

export type NewCertificate = Omit<
  CertificateEntity,
  'revokedAt' | 'revocationReason' | 'revocationReasonCode'
>;

/**
 * Stores a new certificate unless the tenant's plan limit is reached (CONFLICT
 * CERTIFICATE_LIMIT_REACHED). With a limit, a transaction-scoped advisory lock on the tenant is
 * taken first (its own statement, so the count that follows sees every issuance committed while
 * it waited): two concurrent issuances cannot both take the last free slot. Must run in a
 * transaction; a duplicate serial surfaces as the driver's unique violation.
 */
export async function insertWithinCertificateLimit(
  manager: EntityManager,
  certificate: NewCertificate,
  limit: number | undefined,
): Promise<void> {
  const limited = limit !== undefined && limit !== null;
  if (limited && (!Number.isSafeInteger(limit) || limit < 0 || limit > 0x7fffffff)) {
    throw new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
  }
  if (limited) {
    await manager.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
      CERTIFICATE_LIMIT_LOCK_SPACE,
      certificate.tenantId,
    ]);
  }
  const inserted: unknown[] = await manager.query(INSERT_WITHIN_LIMIT, [
    certificate.id,
    certificate.tenantId,
    certificate.caId,
    certificate.serialNumber,
    certificate.clientId,
    certificate.commonName,
    certificate.organization,
    certificate.organizationalUnit,
    certificate.country,
    certificate.certificateDer,
    certificate.usage,
    certificate.dnsNames,
    certificate.mustStaple,
    JSON.stringify(certificate.customExtensions), // not a PostgreSQL array: jsonb text
    certificate.notBefore,
    certificate.notAfter,
    certificate.issuedAt,
    certificate.renewedFrom,
    limited ? limit : null,
  ]);
  if (inserted.length === 1) return;
  const [{ count: active }]: { count: number }[] = await manager.query(activeCount('$1'), [
    certificate.tenantId,
  ]);
  throw CaError.conflict(
    `The tenant's plan allows at most ${limit} active certificates and ${active} are active.`,
    ErrorCode.CertificateLimitReached,
  );
}
