import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  AddIssuingCaResult,
  AddPendingIssuingCaResult,
  CaHierarchy,
  CaRole,
  CaState,
  CaSummary,
  RevokeCaResult,
  InitializeCaResult,
  InitializeCaV2Result,
  InitializeExternalRootResult,
  KEY_ALGORITHMS,
  PendingIssuingCa,
  UploadCaCertificateResult,
  KeyAlgorithm,
  RenewRootResult,
  ReplaceLeavesResult,
  ReplacementProgress,
} from '@ca/contracts';

/** OpenAPI shape of the docs/api.md#initialize-the-ca response. */
export class InitializeCaResponse implements InitializeCaResult {
  @ApiProperty({ format: 'uuid' })
  caId!: string;

  @ApiProperty({ description: 'PEM of the self-signed CA certificate.' })
  certificatePem!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}

/** One CA of docs/api.md#initialize-the-ca-v2. */
export class IssuingCaResponse {
  @ApiProperty({ format: 'uuid' })
  caId!: string;

  @ApiProperty({ description: 'PEM of the issuing CA certificate, signed by the root.' })
  certificatePem!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}

/** OpenAPI shape of the docs/api.md#initialize-the-ca-v2 response: the root's fields plus the issuing CA. */
export class InitializeCaV2Response extends InitializeCaResponse implements InitializeCaV2Result {
  @ApiProperty({ enum: Object.values(CaHierarchy) })
  hierarchy!: CaHierarchy;

  @ApiProperty({ enum: KEY_ALGORITHMS })
  keyAlgorithm!: KeyAlgorithm;

  @ApiPropertyOptional({ type: IssuingCaResponse, description: 'Absent for RootOnly.' })
  issuingCa?: IssuingCaResponse;
}

/** The pending issuing CA of docs/api.md#external-root. */
export class PendingIssuingCaResponse implements PendingIssuingCa {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ description: 'PKCS#10 request of the CA key, for the corporate root to sign.' })
  csrPem!: string;
  @ApiProperty({ enum: ['pending'] }) state!: 'pending';
}

/** OpenAPI shape of the docs/api.md#initialize-the-ca-v2 response for `ExternalRoot`. */
export class InitializeExternalRootResponse implements InitializeExternalRootResult {
  @ApiProperty({ enum: [CaHierarchy.ExternalRoot] }) hierarchy!: typeof CaHierarchy.ExternalRoot;
  @ApiProperty({ enum: KEY_ALGORITHMS }) keyAlgorithm!: KeyAlgorithm;
  @ApiProperty({ type: PendingIssuingCaResponse }) issuingCa!: PendingIssuingCaResponse;
}

/** docs/api.md#external-root: answer of PUT /v2/ca/{caId}/certificate. */
export class UploadCaCertificateResponse implements UploadCaCertificateResult {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ enum: ['active'] }) state!: 'active';
  @ApiProperty() certificatePem!: string;
  @ApiProperty({ description: 'This CA and the intermediates up to (not including) the corporate root.' })
  chainPem!: string;
  @ApiProperty({ description: "The corporate root: the tenant's trust anchor (ca.pem)." })
  rootCertificatePem!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ enum: KEY_ALGORITHMS }) keyAlgorithm!: KeyAlgorithm;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'A later issuing CA (rollover): the one it replaced, now retired. Absent for the first.',
  })
  retiredCaId?: string;
}

/** docs/api.md#list-the-cas element. */
export class CaSummaryResponse implements CaSummary {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ enum: Object.values(CaRole) }) role!: CaRole;
  @ApiPropertyOptional({ description: 'Uppercase hex, as openssl prints it. Absent while pending.' })
  serialNumber?: string;
  @ApiProperty({ example: 'C=US, O=Acme, CN=Acme Partner Root' }) subject!: string;
  @ApiPropertyOptional({ format: 'date-time' }) notBefore?: string;
  @ApiPropertyOptional({ format: 'date-time' }) notAfter?: string;
  @ApiProperty({
    enum: KEY_ALGORITHMS,
    description: "A corporate root's key is named as read when it is none of these (e.g. EC-secp521r1).",
  })
  keyAlgorithm!: KeyAlgorithm;
  @ApiProperty({
    enum: ['active', 'retired', 'expired', 'revoked', 'pending'],
    description:
      'retired: replaced by a newer issuing CA or root; still serves CRL and OCSP for its certificates. pending: waits for its certificate from the corporate root.',
  })
  state!: CaState;
  @ApiPropertyOptional({ description: 'Absent while pending.' }) certificatePem?: string;
  @ApiPropertyOptional({ description: 'The CSR to have signed, while pending.' }) csrPem?: string;
  @ApiPropertyOptional({ enum: [true], description: 'A corporate root: no key of it is held here.' })
  external?: true;
  @ApiPropertyOptional({
    description:
      'On a root made by renewal: its subject and key signed by the root it replaced (the cross certificate).',
  })
  crossCertificatePem?: string;
}

export class CaListResponse {
  @ApiProperty({ type: [CaSummaryResponse] }) cas!: CaSummaryResponse[];
}

/** docs/api.md#revoke-an-issuing-ca response. */
export class RevokeCaResponse implements RevokeCaResult {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ description: 'Uppercase hex, as openssl prints it.' }) serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) revokedAt!: string;
  @ApiProperty({
    description:
      'Whether OCSP already answers revoked for the CA. false: recorded all the same; published once the responder is back.',
  })
  published!: boolean;
}

/** docs/api.md#replace-now response of POST /v2/ca/{caId}/replace-leaves. */
export class ReplaceLeavesResponse implements ReplaceLeavesResult {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ type: 'integer', description: 'Active leaves whose renewal window now lies in the past.' })
  marked!: number;
  @ApiProperty({ format: 'date-time' }) requestedAt!: string;
}

/** docs/api.md#replace-now response of GET /v2/ca/{caId}/replacement. */
export class ReplacementResponse implements ReplacementProgress {
  @ApiProperty({ type: 'integer', description: 'Leaves asked to be replaced.' }) total!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Those with a successor issued (ACME replaces, or a renewal).',
  })
  replaced!: number;
  @ApiProperty({ type: 'integer', description: 'Those not replaced and still Active.' }) remaining!: number;
}

/** docs/api.md#add-an-issuing-ca response. */
export class AddIssuingCaResponse implements AddIssuingCaResult {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty() certificatePem!: string;
  @ApiProperty({ description: 'The chain up to (not including) the root: this CA.' }) chainPem!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ enum: KEY_ALGORITHMS }) keyAlgorithm!: KeyAlgorithm;
  @ApiPropertyOptional({ format: 'uuid', description: 'The issuing CA this one replaced, now retired.' })
  retiredCaId?: string;
}

/** docs/api.md#add-an-issuing-ca under a corporate root (ExternalRoot): the new CA and its CSR. */
export class AddPendingIssuingCaResponse implements AddPendingIssuingCaResult {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ enum: ['pending'] }) state!: 'pending';
  @ApiProperty({ description: "PKCS#10 request of the new CA's key, for the corporate CA to sign." })
  csrPem!: string;
  @ApiProperty({ enum: KEY_ALGORITHMS }) keyAlgorithm!: KeyAlgorithm;
}

/** The new issuing CA of docs/api.md#renew-the-root. */
export class RenewedIssuingCaResponse {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty() certificatePem!: string;
  @ApiProperty({ description: 'This CA and the cross certificate: what leaves under it are sent with.' })
  chainPem!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

/** docs/api.md#renew-the-root response. */
export class RenewRootResponse implements RenewRootResult {
  @ApiProperty({ format: 'uuid', description: 'The new root.' }) caId!: string;
  @ApiProperty({ description: 'PEM of the new self-signed root.' }) certificatePem!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ enum: KEY_ALGORITHMS }) keyAlgorithm!: KeyAlgorithm;
  @ApiProperty({ description: "The new root's subject and key, signed by the root it replaces." })
  crossCertificatePem!: string;
  @ApiProperty({ format: 'uuid', description: 'The root replaced, now retired.' }) retiredRootCaId!: string;
  @ApiProperty({ type: RenewedIssuingCaResponse }) issuingCa!: RenewedIssuingCaResponse;
  @ApiPropertyOptional({ format: 'uuid', description: 'The issuing CA replaced, now retired.' })
  retiredCaId?: string;
}
