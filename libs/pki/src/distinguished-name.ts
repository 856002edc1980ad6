/**
 * The subject or issuer of a certificate, limited to the attributes this CA writes (RFC 5280
 * 4.1.2.4 and 4.1.2.6). Encoded as one RDN per attribute, in the order C, O, OU, CN.
 */
export interface DistinguishedName {
  commonName: string;
  organization?: string;
  organizationalUnit?: string;
  /** ISO 3166-1 alpha-2, two uppercase letters. */
  country?: string;
}
