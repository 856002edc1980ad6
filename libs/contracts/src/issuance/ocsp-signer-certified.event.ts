import type { CrlIssuer } from '../revocation/crl-published.event';

/**
 * Payload of `ocsp-signer.certified`: issuance certified a delegated OCSP signer (RFC 6960
 * 4.2.2.2) for the key whose SubjectPublicKeyInfo hashes to `publicKeySha256`. Announced so the
 * responder, which asks for every signer it holds, notices one it did not ask for
 * (docs/security.md, "OCSP signer certificates").
 */
export interface OcspSignerCertifiedPayload {
  tenantId: string;
  /** The CA that certified the signer. */
  caId: string;
  /** `root`: certified by the root, to answer for the issuing CA; absent: by a CA that signs leaves. */
  issuer?: CrlIssuer;
  /** Of the signer certificate, hexadecimal. */
  serialNumber: string;
  /** SHA-256 of the certified key's DER SubjectPublicKeyInfo, hexadecimal. */
  publicKeySha256: string;
  notAfter: string;
  certifiedAt: string;
}
