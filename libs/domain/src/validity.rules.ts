import { CertificateUsage, FieldError, MAX_SERVER_VALIDITY_DAYS } from '@ca/contracts';

/**
 * A server certificate (usage Server or ClientAndServer) is valid at most MAX_SERVER_VALIDITY_DAYS
 * (CA/B BR 6.3.2's 825 days), for an issue and for a renewal alike; a client certificate is bound
 * only by its field's maximum. The pre-signing lint `e_server_leaf_validity_over_825_days` (libs/pki)
 * holds the signed certificate to the same cap.
 */
export function serverValidityErrors(usage: CertificateUsage, validityDays: number): FieldError[] {
  if (usage === CertificateUsage.Client || validityDays <= MAX_SERVER_VALIDITY_DAYS) return [];
  return [
    { field: 'validityDays', message: `must be at most ${MAX_SERVER_VALIDITY_DAYS} for usage ${usage}` },
  ];
}
