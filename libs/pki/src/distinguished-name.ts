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

/**
 * The subject of a leaf: any of the attributes, or none. Without commonName the subject names the
 * holder only through its subjectAltName (a DNS name longer than ub-common-name, 64 characters,
 * cannot be a CN); an empty subject makes the subjectAltName critical (RFC 5280 4.2.1.6).
 */
export type LeafSubject = Omit<DistinguishedName, 'commonName'> & { commonName?: string };
