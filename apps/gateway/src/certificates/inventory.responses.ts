import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CertificateSource, InventoryItem, InventorySummary } from '@ca/contracts';
import { CertificateSummaryDoc } from './certificate.responses';

/** OpenAPI shapes of docs/api.md#search-certificates and docs/api.md#certificate-summary. */
export class InventoryItemDoc extends CertificateSummaryDoc implements InventoryItem {
  @ApiProperty({ type: [String], description: 'DNS names.' }) subjectAlternativeNames!: string[];
  @ApiProperty({ enum: ['Client', 'Server', 'ClientAndServer'] }) usage!: string;
  @ApiProperty({ format: 'uuid', description: 'The issuing CA.' }) caId!: string;
  @ApiProperty({ enum: Object.values(CertificateSource) }) source!: CertificateSource;
  @ApiPropertyOptional({ format: 'date-time', description: 'When revoked.' }) revokedAt?: string;
}

export class InventoryPageDoc {
  @ApiProperty({ type: [InventoryItemDoc] }) certificates!: InventoryItemDoc[];
  @ApiProperty({ type: String, nullable: true, description: 'Opaque; null on the last page.' })
  nextCursor!: string | null;
}

class ExpiringWithinDoc {
  @ApiProperty({ name: '7' }) '7'!: number;
  @ApiProperty({ name: '30' }) '30'!: number;
  @ApiProperty({ name: '90' }) '90'!: number;
}

export class InventorySummaryDoc implements InventorySummary {
  @ApiProperty() active!: number;
  @ApiProperty() revoked!: number;
  @ApiProperty() expired!: number;
  @ApiProperty({
    type: ExpiringWithinDoc,
    description: 'Active certificates expiring within 7, 30, 90 days.',
  })
  expiringWithin!: ExpiringWithinDoc;
}

export class RevokeMatchingRequestDoc {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'The list filters of searchCertificates (status, q, clientId, caId, usage, source, expiresBefore, …).',
  })
  filter?: Record<string, string>;
  @ApiProperty({ minLength: 1, maxLength: 255, description: 'Free text for the audit log.' }) reason!: string;
  @ApiPropertyOptional({ description: 'As for a single revocation; Unspecified by default.' })
  reasonCode?: string;
  @ApiPropertyOptional({ description: 'Count only.' }) dryRun?: boolean;
  @ApiPropertyOptional({ description: 'Required unless dryRun: the count the dry run answered.' })
  expectedCount?: number;
}

export class RevokeMatchingResponseDoc {
  @ApiProperty() matched!: number;
  @ApiPropertyOptional({ format: 'uuid', description: 'Absent on a dry run.' }) jobId?: string;
}

export class RevocationJobDoc {
  @ApiProperty({ format: 'uuid' }) jobId!: string;
  @ApiProperty({ enum: ['revoke-matching'] }) kind!: string;
  @ApiProperty({ enum: ['running', 'done', 'failed'] }) status!: string;
  @ApiProperty() total!: number;
  @ApiProperty({ description: 'Revoked so far.' }) done!: number;
  @ApiProperty({
    description:
      'Not revoked by the job: revoked meanwhile by another call, gone, or refused for the certificate itself.',
  })
  failed!: number;
  @ApiPropertyOptional({
    description: 'Why the job stopped (status failed): the certificates still pending were not revoked.',
  })
  error?: string;
}
