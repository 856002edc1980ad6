import type { TenantId } from '@ca/contracts';

/** Who is calling, from a verified token (docs/api.md#tokens). */
export interface AuthenticatedPrincipal {
  /** Checked and lower-cased once, from the token's claim. */
  tenantId: TenantId;
  /** The token's `sub`, written to the audit log. */
  subject: string;
  scopes: string[];
}

export const Scope = {
  CaAdmin: 'ca:admin',
  CertificatesWrite: 'certificates:write',
  CertificatesRead: 'certificates:read',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: Scope[] = [Scope.CaAdmin, Scope.CertificatesWrite, Scope.CertificatesRead];
