import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CertificateDetail,
  CertificateStatus,
  CertificateSummary,
  ExpiringCertificateSummary,
  IssueCertificateResponse,
  RenewCertificateResponse,
  RevokeCertificateResult,
} from '@ca/contracts';

const STATUS = { enum: Object.values(CertificateStatus) };

/** OpenAPI shapes of spec 4.1.4–4.1.9; the field lists are exactly those of spec 2.3. */
export class IssueCertificateResponseDoc implements IssueCertificateResponse {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ description: 'Uppercase hex, as openssl prints it.' }) serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiPropertyOptional() certificatePem?: string;
  @ApiPropertyOptional({ description: 'Returned once; not stored by the service.' }) privateKeyPem?: string;
}

export class RenewCertificateResponseDoc implements RenewCertificateResponse {
  @ApiProperty({ format: 'uuid' }) newCertificateId!: string;
  @ApiProperty() serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiPropertyOptional() certificatePem?: string;
  @ApiPropertyOptional({ description: 'Returned once; not stored by the service.' }) privateKeyPem?: string;
}

export class RevokeCertificateResponseDoc implements RevokeCertificateResult {
  @ApiProperty({ format: 'uuid' }) certificateId!: string;
  @ApiProperty({ format: 'date-time' }) revokedAt!: string;
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
  @ApiProperty(STATUS) status!: CertificateStatus;
  @ApiProperty({ format: 'date-time' }) issuedAt!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) revokedAt?: string;
  @ApiPropertyOptional() revocationReason?: string;
  @ApiProperty({ type: 'integer', format: 'int32' }) daysUntilExpiration!: number;
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
