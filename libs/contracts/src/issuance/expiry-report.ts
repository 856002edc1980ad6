import { ExpiringCertificateSummary } from './certificate-views';

/** `npm run ops -- expiring --days N`: every tenant's Active certificates expiring within N days. */
export interface ExpiryReportQuery {
  /** 0 to 3650, as for the tenant's own expiring list (docs/api.md#expiring-certificates). */
  days: number;
}

/** Tenants with at least one such certificate, by tenant id; each list soonest first. */
export interface ExpiryReport {
  days: number;
  tenants: { tenantId: string; certificates: ExpiringCertificateSummary[] }[];
}
