import { ALL_POLICY_USAGES, type PolicyUsage } from '@ca/contracts';
import {
  type CaCertificateProfile,
  type DistinguishedName,
  type KeyPurpose,
  type NameConstraints,
  parseCertificate,
  randomSerialNumber,
  readNameConstraints,
} from '@ca/pki';
import { distributionPointsFor } from '../certificates/distribution-points';
import type { TenantPolicy } from '../policy/issuance-policies';

const PURPOSE_OF_USAGE: Record<PolicyUsage, KeyPurpose> = { Client: 'clientAuth', Server: 'serverAuth' };

/**
 * The EKU of an issuing CA: the purposes of the leaves the tenant policy allows it to sign
 * (docs/api.md#issuance-policy `allowedUsages`; both without a policy). openssl and other relying
 * parties require a leaf's EKU among its CA's (CA/B BR 7.1.2.10.6), so a CA without serverAuth
 * cannot certify a TLS server even if it signed one. The delegated OCSP signer's OCSPSigning is
 * left out on purpose: a CA with it could answer OCSP for its own root's other CAs; openssl does
 * not ask a CA for it when checking an OCSP signer.
 */
export function issuingCaExtendedKeyUsages(policy: TenantPolicy | null): KeyPurpose[] {
  // serverAuth first, as issuing CAs made before allowedUsages carry it.
  const usages = policy?.allowedUsages ?? ALL_POLICY_USAGES;
  return [...usages].reverse().map((usage) => PURPOSE_OF_USAGE[usage]);
}

// Every IPv4 and IPv6 address: a policy never allows an IP address (docs/api.md#issuance-policy).
const EVERY_IP_ADDRESS = ['0.0.0.0/0', '::/0'];

/**
 * The name constraints for a tenant policy (docs/api.md#issuance-policy), none without one:
 * each allowed suffix a permitted dNSName subtree (RFC 5280 4.2.1.10: `example.com` covers it and
 * every name under it, as the policy does); an empty list a zero-length excluded dNSName (no DNS
 * name, CA/B BR 7.1.2.5.2); and, since a policy allows no IP address, every IP range excluded.
 * Other name forms (email, URI, directoryName) stay unconstrained: this CA writes none.
 */
export function nameConstraintsFor(
  allowedDnsSuffixes: readonly string[] | null,
): NameConstraints | undefined {
  if (allowedDnsSuffixes === null) return undefined;
  return {
    permittedDnsNames: [...allowedDnsSuffixes],
    excludedDnsNames: allowedDnsSuffixes.length === 0 ? [''] : [],
    excludedIpRanges: EVERY_IP_ADDRESS,
  };
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * Whether an issuing CA certificate already carries what the policy asks for: its name
 * constraints and its EKU. When not, a policy change rolls the issuing CA over.
 */
export function carriesPolicy(certificateDer: Uint8Array, policy: TenantPolicy | null): boolean {
  const wantedPurposes = issuingCaExtendedKeyUsages(policy);
  if (!sameSet(parseCertificate(certificateDer).extendedKeyUsages, wantedPurposes)) return false;
  const wanted = nameConstraintsFor(policy?.allowedDnsSuffixes ?? null);
  const found = readNameConstraints(certificateDer);
  if (!wanted || !found) return !wanted && !found;
  return (
    sameSet(found.permittedDnsNames, wanted.permittedDnsNames) &&
    sameSet(found.excludedDnsNames, wanted.excludedDnsNames) &&
    sameSet(found.excludedIpRanges, wanted.excludedIpRanges)
  );
}

/**
 * The certificate profile of an issuing CA, whether `initialize` or `POST /v2/ca/issuing` (or a
 * policy change) makes it (docs/api.md#certificate-profile): pathLenConstraint 0, AIA OCSP and
 * caIssuers (the root), and the tenant policy's EKU (allowed usages) and name constraints.
 * The caller names the subject, validity and CDP, which differ between the two.
 */
export function issuingCaProfile(
  pkiPublicUrl: string,
  tenantId: string,
  policy: TenantPolicy | null,
  basics: { subject: DistinguishedName; notBefore: Date; notAfter: Date; crlDistributionPointUrl: string },
): CaCertificateProfile {
  const urls = distributionPointsFor(pkiPublicUrl, tenantId);
  const nameConstraints = nameConstraintsFor(policy?.allowedDnsSuffixes ?? null);
  return {
    ...basics,
    serialNumber: randomSerialNumber(),
    pathLenConstraint: 0,
    ocspUrl: urls.ocspUrl,
    caIssuersUrl: urls.caIssuersUrl,
    extendedKeyUsages: issuingCaExtendedKeyUsages(policy),
    ...(nameConstraints ? { nameConstraints } : {}),
  };
}
