import { CaError, CertificateStatus, ExpiringCertificateSummary } from '@ca/contracts';
import { addDays, daysUntilExpiration } from './certificate-lifecycle';

/**
 * The one rule of "expiring" (docs/api.md#expiring-certificates), for a tenant's own list and the
 * operators' cross-tenant report alike: Active certificates (not revoked) whose notAfter is in
 * (now, now + days], days a whole number from 0 to 3650.
 */
export const MAX_EXPIRING_DAYS = 3650;

export interface ExpiringRow {
  id: string;
  tenant_id: string;
  client_id: string;
  common_name: string;
  serial_number: string;
  not_after: Date;
}

export const EXPIRING_COLUMNS = 'id, tenant_id, client_id, common_name, serial_number, not_after';

/** The window (now, now + days]; refuses a `days` outside the rule with VALIDATION_FAILED. */
export function expiringWindow(days: unknown, now = new Date()): { from: Date; to: Date } {
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 0 || days > MAX_EXPIRING_DAYS)
    throw CaError.validation([
      { field: 'days', message: `days must be a whole number from 0 to ${MAX_EXPIRING_DAYS}` },
    ]);
  return { from: now, to: addDays(now, days) };
}

export function expiringSummary(row: ExpiringRow, now: Date): ExpiringCertificateSummary {
  return {
    certificateId: row.id,
    tenantId: row.tenant_id,
    clientId: row.client_id,
    commonName: row.common_name,
    serialNumber: row.serial_number,
    status: CertificateStatus.Active,
    expiresAt: row.not_after.toISOString(),
    daysUntilExpiration: daysUntilExpiration(row.not_after, now),
  };
}
