import { CertificateStatus } from '@ca/contracts';

const DAY_MS = 86_400_000;

/** docs/api.md#certificate-fields-and-status, docs/api.md#certificate-states: Revoked wins; otherwise Expired once notAfter has passed. */
export function statusOf(
  cert: { revokedAt: Date | null; notAfter: Date },
  now = new Date(),
): CertificateStatus {
  if (cert.revokedAt) return CertificateStatus.Revoked;
  return cert.notAfter.getTime() <= now.getTime() ? CertificateStatus.Expired : CertificateStatus.Active;
}

/** Whole days from now to notAfter, rounded down, never below 0 (docs/certificate-profile.md). */
export function daysUntilExpiration(notAfter: Date, now = new Date()): number {
  return Math.max(0, Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS));
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}
