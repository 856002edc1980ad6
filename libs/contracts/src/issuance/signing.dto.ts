import { IsBase64, IsString, IsUUID, Length, MaxLength } from 'class-validator';

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
}

export interface IssueOcspSignerResult {
  /** DER of the delegated OCSP-signing certificate (EKU OCSPSigning, id-pkix-ocsp-nocheck), base64. */
  certificateDer: string;
  notAfter: string;
}
