import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';
import { KEY_ALGORITHMS, KeyAlgorithm } from './key-algorithm';

/** The longest an issuing CA may be asked for; it never outlives its root either. */
export const MAX_ISSUING_CA_VALIDITY_DAYS = 30 * 366;

/**
 * docs/api.md#add-an-issuing-ca: body of POST /v2/ca/issuing. Every field is optional: the key
 * algorithm defaults to the root's, the validity to the rest of the root's. Under a corporate root
 * (docs/api.md#external-root) the key algorithm defaults to the current issuing CA's and
 * `validityDays` is refused: the corporate CA sets the validity.
 */
export class AddIssuingCaRequest {
  @IsOptional()
  @IsIn(KEY_ALGORITHMS)
  keyAlgorithm?: KeyAlgorithm;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_ISSUING_CA_VALIDITY_DAYS)
  validityDays?: number;
}

export interface AddIssuingCaCommand extends TenantCommand {
  request: AddIssuingCaRequest;
}

/** docs/api.md#add-an-issuing-ca response. */
export interface AddIssuingCaResult {
  caId: string;
  certificatePem: string;
  /** The chain up to (not including) the root: this CA's certificate (docs/api.md#chains). */
  chainPem: string;
  expiresAt: string;
  keyAlgorithm: KeyAlgorithm;
  /** The issuing CA that signed leaves until now and is now retired; absent when the root did. */
  retiredCaId?: string;
}

/**
 * docs/api.md#add-an-issuing-ca under a corporate root (docs/api.md#external-root): the new issuing
 * CA waits for its certificate; the current one keeps signing leaves until it is uploaded.
 */
export interface AddPendingIssuingCaResult {
  caId: string;
  state: 'pending';
  /** PKCS#10 request of the new CA's key (RFC 2986), to be signed by the corporate CA. */
  csrPem: string;
  keyAlgorithm: KeyAlgorithm;
}
