import { CaError, ErrorCode } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** First key of the two-key advisory lock, so the tenant's hash cannot meet another lock's key. */
const CERTIFICATE_LIMIT_LOCK_SPACE = 0x63_65_72_74; // "cert"

/**
 * CONTRACT section 5: the plan limit counts the tenant's Active certificates (not revoked, not
 * expired). With `lock`, takes a transaction-scoped advisory lock on the tenant first, so that two
 * concurrent issuances cannot both see the last free slot: the second waits for the first to
 * commit and then counts its certificate too.
 */
export async function assertBelowCertificateLimit(
  manager: EntityManager,
  tenantId: string,
  limit: number | undefined,
  options: { lock: boolean },
): Promise<void> {
  if (limit === undefined || limit === null) return;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
  }
  if (options.lock) {
    await manager.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
      CERTIFICATE_LIMIT_LOCK_SPACE,
      tenantId,
    ]);
  }
  const [{ active }]: { active: number }[] = await manager.query(
    `SELECT count(*)::int AS active FROM issuance.certificates
      WHERE tenant_id = $1 AND revoked_at IS NULL AND not_after > now()`,
    [tenantId],
  );
  if (active >= limit) {
    throw CaError.conflict(
      `The tenant's plan allows at most ${limit} active certificates and ${active} are active.`,
      ErrorCode.CertificateLimitReached,
    );
  }
}
