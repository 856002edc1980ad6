import type { DistinguishedName } from './distinguished-name';

/** What other contexts read from a certificate (RFC 5280 4.1), as plain values. */
export interface CertificateInfo {
  /** As `openssl x509 -serial` prints it: uppercase hex without separators. */
  serialNumberHex: string;
  subject: DistinguishedName;
  /**
   * The subject Name exactly as encoded in the certificate (RFC 5280 4.1.2.6), to compare with the
   * issuer of what this certificate signs (a CRL's issuer, RFC 5280 6.3.3 (b)) without re-encoding.
   */
  subjectDer: Uint8Array;
  issuer: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  /** basicConstraints cA (RFC 5280 4.2.1.9); false when the extension is absent. */
  isCa: boolean;
  /** Uppercase hex without separators; absent when the certificate has no SKI extension. */
  subjectKeyIdentifierHex?: string;
  /** keyIdentifier of the AKI (RFC 5280 4.2.1.1), uppercase hex; absent without one. */
  authorityKeyIdentifierHex?: string;
  /** SHA-256 over the whole DER certificate, uppercase hex without separators. */
  sha256FingerprintHex: string;
  /**
   * Key purposes of the EKU (RFC 5280 4.2.1.12) in certificate order: `serverAuth`, `clientAuth`,
   * `codeSigning`, `emailProtection`, `timeStamping`, `ocspSigning`, `anyExtendedKeyUsage`, or the
   * dotted OID of any other purpose. Empty without the extension.
   */
  extendedKeyUsages: string[];
  /** dNSName entries of the subjectAltName (RFC 5280 4.2.1.6); other name types are left out. */
  dnsNames: string[];
  /** URIs of the fullName of every CRL distribution point (RFC 5280 4.2.1.13). */
  crlDistributionPointUrls: string[];
  /** id-ad-ocsp URIs of the Authority Information Access (RFC 5280 4.2.2.1). */
  ocspUrls: string[];
  /** id-ad-caIssuers URIs of the Authority Information Access (RFC 5280 4.2.2.1). */
  caIssuersUrls: string[];
  /** Whether a TLS Feature extension asks for status_request (RFC 7633 "must-staple"). */
  mustStaple: boolean;
  /** extnID of every extension, in certificate order. */
  extensionOids: string[];
  /** Extensions under the custom arc (docs/api.md#certificate-profile), in certificate order, with their key and value. */
  customExtensions: { oid: string; key: string; value: string }[];
}
