import { IsBase64, IsIn, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import type { CrlIssuer } from '../revocation/crl-published.event';
import { CaError, FieldError } from '../common/ca-error';

/**
 * Signing on behalf of the other contexts (docs/architecture.md#command-path-requestreply): the CA key never leaves issuance, so the
 * revocation context sends the TBSCertList it built, and the responder the public key of its
 * delegated OCSP signer. Classes so that issuance validates them (validateDto) like any command.
 */
export class SignCrlCommand {
  @IsUUID()
  tenantId!: string;

  /** BlobStore reference of the DER TBSCertList (too large for one message at scale). */
  @IsString()
  @Length(1, 512)
  tbsBlobRef!: string;

  /** `root`: signed by the tenant's root (root.crl); absent: by the CA that signs leaves. */
  @IsOptional()
  @IsIn(['root'])
  issuer?: CrlIssuer;

  /**
   * Which of the tenant's leaf-signing CAs (the current one or a retired one,
   * docs/api.md#add-an-issuing-ca); absent: the one that signs leaves now. Not with `issuer`.
   */
  @IsOptional()
  @IsUUID()
  caId?: string;
}

/**
 * A CRL sign request refused because its CRLNumber is not above the last one issuance signed for
 * the CA names that number in a `crlNumber` field error, so revocation can move its counter past
 * it (a CRL signed, then lost before it was stored) instead of asking for a used number again.
 * RFC 5280 5.2.3: numbers only increase; gaps are allowed, a number signed twice is not.
 */
export function crlNumberUsedError(lastSigned: bigint): FieldError {
  return { field: 'crlNumber', message: `at most ${lastSigned} has been signed` };
}

/** The last CRLNumber signed, from a refusal made with crlNumberUsedError; else undefined. */
export function lastSignedCrlNumber(error: unknown): bigint | undefined {
  if (!(error instanceof CaError)) return undefined;
  const field = error.errors?.find((e) => e.field === 'crlNumber');
  const match = field && /^at most (\d{1,48}) has been signed$/.exec(field.message);
  return match ? BigInt(match[1]) : undefined;
}

export interface SignCrlResult {
  /** DER Ecdsa-Sig-Value over the TBSCertList, base64. */
  signature: string;
}

export class IssueOcspSignerCommand {
  @IsUUID()
  tenantId!: string;

  /** DER SubjectPublicKeyInfo of the responder's own key, base64. */
  @IsString()
  @MaxLength(4096)
  @IsBase64()
  publicKeySpki!: string;

  /** `root`: certified by the root, to answer for the issuing CA; absent: by the CA that signs leaves. */
  @IsOptional()
  @IsIn(['root'])
  issuer?: CrlIssuer;

  /**
   * Which of the tenant's leaf-signing CAs (the current one or a retired one,
   * docs/api.md#add-an-issuing-ca); absent: the one that signs leaves now. Not with `issuer`.
   */
  @IsOptional()
  @IsUUID()
  caId?: string;
}

export interface IssueOcspSignerResult {
  /** DER of the delegated OCSP-signing certificate (EKU OCSPSigning, id-pkix-ocsp-nocheck), base64. */
  certificateDer: string;
  notAfter: string;
}
