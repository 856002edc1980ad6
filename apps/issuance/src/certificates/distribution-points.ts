/**
 * docs/api.md#certificate-profile: where relying parties find revocation data and the issuer certificate,
 * written into every issued certificate (CDP: RFC 5280 4.2.1.13; AIA: RFC 5280 4.2.2.1).
 */
export interface DistributionPoints {
  crlUrl: string;
  ocspUrl: string;
  caIssuersUrl: string;
}

export function distributionPointsFor(pkiPublicUrl: string, tenantId: string): DistributionPoints {
  const base = `${pkiPublicUrl}/v1/tenants/${tenantId}`;
  return { crlUrl: `${base}/crl`, ocspUrl: `${base}/ocsp`, caIssuersUrl: `${base}/ca.crt` };
}
