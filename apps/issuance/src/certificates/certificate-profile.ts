import { CertificateUsage, MAX_SANS } from '@ca/contracts';
import { looksLikeHostName } from '@ca/domain';
import { CUSTOM_EXTENSION_ARC, ExtendedKeyUsage, encodeKeyValueExtension } from '@ca/pki';

/** What a certificate says about its subject and use; issue builds it, renew copies it. */
export interface CertificateProfile {
  clientId: string;
  /** '' when the subject has no CN (acme, names longer than 64 characters). */
  commonName: string;
  organization: string;
  organizationalUnit: string;
  country: string;
  usage: CertificateUsage;
  dnsNames: string[];
  mustStaple: boolean;
  /** In key order; each key's OID arc comes from the tenant's CustomExtensionArcs. */
  customExtensions: { key: string; value: string }[];
}

/** docs/api.md#issue-a-certificate-v2 usage → RFC 5280 4.2.1.12 extended key usages. */
export function extendedKeyUsagesOf(usage: CertificateUsage): ExtendedKeyUsage[] {
  if (usage === 'Server') return ['serverAuth'];
  if (usage === 'ClientAndServer') return ['serverAuth', 'clientAuth'];
  return ['clientAuth'];
}

/**
 * Host names as they go into the certificate: DNS SANs lower-cased (RFC 5280 4.2.1.6 compares
 * dNSName case-insensitively, so nothing is lost), and a server certificate's host-name CN
 * lower-cased too and, when missing, added as the first SAN, so that the CN equals one SAN byte
 * for byte (CA/B BR 7.1.4.3; TLS clients match the SAN only, RFC 6125 6.4.4). Renewal runs it again,
 * so certificates issued before this rule are renewed under it. The request rules have already
 * refused a host-name CN that is not a valid SAN or does not fit.
 */
export function normalizedHostNames(
  usage: CertificateUsage,
  commonName: string,
  dnsNames: readonly string[],
): { commonName: string; dnsNames: string[] } {
  const names = dnsNames.map((name) => name.toLowerCase());
  if (usage === CertificateUsage.Client || !looksLikeHostName(commonName)) {
    return { commonName, dnsNames: names };
  }
  const hostName = commonName.toLowerCase();
  if (!names.includes(hostName) && names.length < MAX_SANS) names.unshift(hostName);
  return { commonName: hostName, dnsNames: names };
}

/** Custom extensions in a stable order (by key). */
export function orderedCustomExtensions(
  extensions: Record<string, string> | undefined,
): { key: string; value: string }[] {
  return Object.entries(extensions ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

/** Each custom extension under `1.3.6.1.4.1.99999.2.{arc of its key}` (`arcs` holds every key). */
export function customExtensionsOf(
  profile: CertificateProfile,
  arcs: ReadonlyMap<string, number>,
): { oid: string; value: Uint8Array }[] {
  return profile.customExtensions.map(({ key, value }) => {
    const arc = arcs.get(key);
    if (arc === undefined) throw new Error(`No OID arc for the custom extension key "${key}"`);
    return { oid: `${CUSTOM_EXTENSION_ARC}.${arc}`, value: encodeKeyValueExtension(key, value) };
  });
}
