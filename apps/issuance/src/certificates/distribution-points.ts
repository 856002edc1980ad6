/**
 * docs/api.md#certificate-profile: where relying parties find revocation data and the issuer certificate,
 * written into every issued certificate (CDP: RFC 5280 4.2.1.13; AIA: RFC 5280 4.2.2.1).
 */
export interface DistributionPoints {
  /** CRL of the CA that signs leaves. */
  crlUrl: string;
  ocspUrl: string;
  /** The root certificate (DER): caIssuers of what the root signs. */
  caIssuersUrl: string;
  /** The issuing CA certificate (DER): caIssuers of the leaves an issuing CA signs. */
  issuingCaIssuersUrl: string;
  /** The root's CRL, listing revoked issuing CAs: CDP of an issuing CA. */
  rootCrlUrl: string;
}

export function distributionPointsFor(pkiPublicUrl: string, tenantId: string): DistributionPoints {
  const base = `${pkiPublicUrl}/v1/tenants/${tenantId}`;
  return {
    crlUrl: `${base}/crl`,
    ocspUrl: `${base}/ocsp`,
    caIssuersUrl: `${base}/ca.crt`,
    issuingCaIssuersUrl: `${base}/issuing-ca.crt`,
    rootCrlUrl: `${base}/root.crl`,
  };
}
