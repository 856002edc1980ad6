import type { DistinguishedName } from './distinguished-name';

/** What other contexts read from a certificate (RFC 5280 4.1), as plain values. */
export interface CertificateInfo {
  /** As `openssl x509 -serial` prints it: uppercase hex without separators. */
  serialNumberHex: string;
  subject: DistinguishedName;
  issuer: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  /** basicConstraints cA (RFC 5280 4.2.1.9); false when the extension is absent. */
  isCa: boolean;
  /** Uppercase hex without separators; absent when the certificate has no SKI extension. */
  subjectKeyIdentifierHex?: string;
  /** SHA-256 over the whole DER certificate, uppercase hex without separators. */
  sha256FingerprintHex: string;
}
