import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CertificateDelivery,
  CertificateDetail,
  CertificateStatus,
  CertificateSummary,
  ExpiringCertificateSummary,
  IssueCertificateResponse,
  RenewCertificateResponse,
  ReleaseHoldResult,
  RevokeCertificateResult,
} from '@ca/contracts';

const STATUS = { enum: Object.values(CertificateStatus) };

/** OpenAPI shapes of docs/api.md; the field lists are exactly those of docs/api.md#certificate-fields-and-status. */
/** The delivery fields of docs/api.md#issuance-answer, shared by issue and renew (same presence rules). */
export class CertificateDeliveryDoc implements CertificateDelivery {
  @ApiPropertyOptional({ description: 'responseFormat Text.' }) certificatePem?: string;
  @ApiPropertyOptional({
    description:
      'With certificatePem: PEM of the issuing CA up to, not including, the root; empty when the root signed it.',
  })
  chainPem?: string;
  @ApiPropertyOptional({
    description:
      'responseFormat Text; returned once, not stored by the service. Absent when the request had csrPem: the key stays with the caller.',
  })
  privateKeyPem?: string;
  @ApiPropertyOptional({
    format: 'uri',
    description: 'responseFormat File: pre-signed GET link (no bearer token), valid one hour.',
  })
  certificateDownloadUrl?: string;
  @ApiPropertyOptional({
    format: 'uri',
    description: 'responseFormat File: pre-signed GET link, valid one hour, works once.',
  })
  privateKeyDownloadUrl?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'responseFormat File: when the links expire.' })
  downloadUrlExpiresAt?: string;
  @ApiPropertyOptional({
    format: 'byte',
    description: 'passwordProtected and Text: PKCS#12 (key, certificate, CA certificate) in base64.',
  })
  pfxBase64?: string;
  @ApiPropertyOptional({
    format: 'uri',
    description:
      'passwordProtected and File: pre-signed GET link to the PKCS#12, valid one hour, works once.',
  })
  pfxDownloadUrl?: string;
  @ApiPropertyOptional({
    minLength: 22,
    description:
      'passwordProtected: the PKCS#12 password (at least 128 random bits, base64url); returned once, never stored.',
  })
  password?: string;
}

export class IssueCertificateResponseDoc extends CertificateDeliveryDoc implements IssueCertificateResponse {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ description: 'Uppercase hex, as openssl prints it.' }) serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class RenewCertificateResponseDoc extends CertificateDeliveryDoc implements RenewCertificateResponse {
  @ApiProperty({ format: 'uuid' }) newCertificateId!: string;
  @ApiProperty() serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class RevokeCertificateResponseDoc implements RevokeCertificateResult {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ format: 'date-time' }) revokedAt!: string;
  @ApiProperty({
    description:
      'Whether OCSP already answers revoked on every responder. false: recorded all the same; OCSP and the CRL follow once the responder is back.',
  })
  published!: boolean;
}

export class ReleaseHoldResponseDoc implements ReleaseHoldResult {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ format: 'date-time', description: 'When the hold ended.' }) releasedAt!: string;
  @ApiProperty({ format: 'date-time', description: 'The revokedAt of the released hold.' })
  heldSince!: string;
}

export class RenewalWindowDoc {
  @ApiProperty({ format: 'date-time' }) start!: string;
  @ApiProperty({ format: 'date-time' }) end!: string;
}

export class CertificateSummaryDoc implements CertificateSummary {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty() clientId!: string;
  @ApiProperty() commonName!: string;
  @ApiProperty() serialNumber!: string;
  @ApiProperty(STATUS) status!: CertificateStatus;
  @ApiProperty({ format: 'date-time' }) issuedAt!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ type: 'integer', format: 'int32' }) daysUntilExpiration!: number;
}

export class CertificateListDoc {
  @ApiProperty({ type: [CertificateSummaryDoc] }) certificates!: CertificateSummaryDoc[];
}

export class CertificateDetailDoc implements CertificateDetail {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ format: 'uuid' }) tenantId!: string;
  @ApiProperty() clientId!: string;
  @ApiProperty() commonName!: string;
  @ApiProperty() serialNumber!: string;
  @ApiProperty() certificatePem!: string;
  @ApiProperty({
    description: 'PEM of the issuing CA up to, not including, the root; empty when the root signed it.',
  })
  chainPem!: string;
  @ApiProperty(STATUS) status!: CertificateStatus;
  @ApiProperty({ format: 'date-time' }) issuedAt!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) revokedAt?: string;
  @ApiPropertyOptional() revocationReason?: string;
  @ApiProperty({ type: 'integer', format: 'int32' }) daysUntilExpiration!: number;
  @ApiProperty({
    type: RenewalWindowDoc,
    description: 'When to renew (RFC 9773): what ACME clients read from renewalInfo.',
  })
  renewalWindow!: RenewalWindowDoc;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'The newest certificate issued as its renewal or replacement.',
  })
  successorId?: string;
}

export class ExpiringCertificateSummaryDoc implements ExpiringCertificateSummary {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ format: 'uuid' }) tenantId!: string;
  @ApiProperty() clientId!: string;
  @ApiProperty() commonName!: string;
  @ApiProperty() serialNumber!: string;
  @ApiProperty(STATUS) status!: CertificateStatus;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ type: 'integer', format: 'int32' }) daysUntilExpiration!: number;
}

export class ExpiringCertificateListDoc {
  @ApiProperty({ type: [ExpiringCertificateSummaryDoc] }) certificates!: ExpiringCertificateSummaryDoc[];
}
