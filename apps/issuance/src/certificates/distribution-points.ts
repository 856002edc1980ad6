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

/** The paths of one CA of the tenant (docs/api.md#add-an-issuing-ca): its own CRL and certificate. */
export function caDistributionPointsFor(
  pkiPublicUrl: string,
  tenantId: string,
  caId: string,
): { crlUrl: string; caIssuersUrl: string } {
  const base = `${pkiPublicUrl}/v1/tenants/${tenantId}/ca/${caId}`;
  return { crlUrl: `${base}/crl`, caIssuersUrl: `${base}.crt` };
}

/**
 * Where a leaf signed by `authority` points its CDP and AIA caIssuers: a CA added by
 * POST /v2/ca/issuing at its own paths, so its leaves keep finding their issuer's CRL and
 * certificate after the next rollover; the CAs made at initialization at `/crl` and at
 * `issuing-ca.crt` or `ca.crt`, as they always have (docs/api.md#distribution-points).
 */
export function leafDistributionPointsFor(
  pkiPublicUrl: string,
  authority: { id: string; tenantId: string; role: string; ownDistributionPoints: boolean },
): { crlUrl: string; caIssuersUrl: string; ocspUrl: string } {
  const urls = distributionPointsFor(pkiPublicUrl, authority.tenantId);
  if (authority.ownDistributionPoints) {
    return {
      ...caDistributionPointsFor(pkiPublicUrl, authority.tenantId, authority.id),
      ocspUrl: urls.ocspUrl,
    };
  }
  return {
    crlUrl: urls.crlUrl,
    caIssuersUrl: authority.role === 'issuing' ? urls.issuingCaIssuersUrl : urls.caIssuersUrl,
    ocspUrl: urls.ocspUrl,
  };
}
