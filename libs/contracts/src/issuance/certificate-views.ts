import { CertificateStatus } from './certificate-status';

/** docs/api.md#certificate-fields-and-status CertificateSummary (elements of the list response). */
export interface CertificateSummary {
  certificateId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: CertificateStatus;
  issuedAt: string;
  expiresAt: string;
  daysUntilExpiration: number;
}

/** docs/api.md#certificate-fields-and-status certificate detail (get by id). */
export interface CertificateDetail {
  certificateId: string;
  tenantId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  certificatePem: string;
  /** docs/api.md#chains: the issuing CA up to, not including, the root; '' when the root signed it. */
  chainPem: string;
  status: CertificateStatus;
  issuedAt: string;
  expiresAt: string;
  revokedAt?: string;
  revocationReason?: string;
  daysUntilExpiration: number;
  /** docs/api.md#renewal-information: when to renew (RFC 9773 4.2), the ACME clients' window. */
  renewalWindow: { start: string; end: string };
  /** The newest certificate issued as its replacement or renewal. */
  successorId?: string;
}

/** docs/api.md#certificate-fields-and-status ExpiringCertificateSummary. */
export interface ExpiringCertificateSummary {
  certificateId: string;
  tenantId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: CertificateStatus;
  expiresAt: string;
  daysUntilExpiration: number;
}

export interface CertificateQuery {
  tenantId: string;
  certificateId: string;
}

export interface ListCertificatesQuery {
  tenantId: string;
}

export interface ExpiringCertificatesQuery {
  tenantId: string;
  /** 0 to 3650 (docs/api.md#expiring-certificates). */
  days: number;
}
