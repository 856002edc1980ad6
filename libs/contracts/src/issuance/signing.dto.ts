import { IsBase64, IsIn, IsOptional, IsString, IsUUID, Length, Matches, MaxLength } from 'class-validator';
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

  /**
   * SHA-256 (lower-case hex) of that TBSCertList as the requester built it. Issuance signs only
   * bytes with this digest: the blob store is writable by more than one service, and a blob
   * replaced between the request and the signature must not be what gets signed.
   */
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, {
    message: 'tbsSha256 must be the SHA-256 of the TBSCertList, 64 lower-case hex digits',
  })
  tbsSha256!: string;

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

/**
 * How long a CRL is valid (nextUpdate − thisUpdate): revocation asks for this, issuance signs no
 * longer. Re-signed at half of it (RFC 5280 5.1.2.5: a new CRL at or before nextUpdate).
 */
export const CRL_VALIDITY_MS = 24 * 60 * 60_000;

/** At most this many differences of each kind are named in one refusal; the next build gets the rest. */
export const CRL_ENTRY_DIFFERENCES_NAMED = 500;

/** How a CRL handed in for signing differs from issuance's ledger, entry by entry. */
export type CrlEntryDifference =
  /** Revoked in the ledger, absent from the CRL: `id` is the certificate's (or issuing CA's). */
  | { kind: 'missing'; serialHex: string; revokedAt: Date; reasonCode: number; id: string }
  /** In the CRL, not revoked in the ledger as listed (serial, date or reason). */
  | { kind: 'extra'; serialHex: string };

/**
 * A CRL refused because its entries differ from issuance's ledger names each difference in a
 * `crlEntries` field error, so revocation can correct its own ledger from issuance's (the owner of
 * the fact) and build again, instead of asking for the same refused CRL until it expires.
 */
export function crlEntryDifferenceError(difference: CrlEntryDifference): FieldError {
  if (difference.kind === 'extra') return { field: 'crlEntries', message: `extra ${difference.serialHex}` };
  const seconds = Math.floor(difference.revokedAt.getTime() / 1000);
  return {
    field: 'crlEntries',
    message: `missing ${difference.serialHex} ${seconds} ${difference.reasonCode} ${difference.id}`,
  };
}

const EXTRA_ENTRY = /^extra ([0-9a-fA-F]{1,42})$/;
const MISSING_ENTRY =
  /^missing ([0-9a-fA-F]{1,42}) (\d{1,12}) (\d{1,2}) ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The differences named by a refusal made with crlEntryDifferenceError; empty for any other error. */
export function crlEntryDifferences(error: unknown): CrlEntryDifference[] {
  if (!(error instanceof CaError)) return [];
  const differences: CrlEntryDifference[] = [];
  for (const { field, message } of error.errors ?? []) {
    if (field !== 'crlEntries') continue;
    const extra = EXTRA_ENTRY.exec(message);
    if (extra) differences.push({ kind: 'extra', serialHex: extra[1] });
    const missing = MISSING_ENTRY.exec(message);
    if (missing) {
      differences.push({
        kind: 'missing',
        serialHex: missing[1],
        revokedAt: new Date(Number(missing[2]) * 1000),
        reasonCode: Number(missing[3]),
        id: missing[4],
      });
    }
  }
  return differences;
}

export interface SignCrlResult {
  /** DER Ecdsa-Sig-Value over the TBSCertList, base64. */
  signature: string;
}

export class IssueOcspSignerCommand {
  @IsUUID()
  tenantId!: string;

  /**
   * DER PKCS#10 CertificationRequest (RFC 2986) of the responder's own key, base64, signed with
   * that key: proof that the requester holds it. Only its key is taken; subject and attributes
   * are ignored.
   */
  @IsString()
  @MaxLength(8192)
  @IsBase64()
  certificationRequest!: string;

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

/** Certifications of OCSP signers per tenant and certifying CA within one rolling hour, at most. */
export const OCSP_SIGNERS_PER_HOUR = 8;

export interface IssueOcspSignerResult {
  /** DER of the delegated OCSP-signing certificate (EKU OCSPSigning, id-pkix-ocsp-nocheck), base64. */
  certificateDer: string;
  notAfter: string;
}
