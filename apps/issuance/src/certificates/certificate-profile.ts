import { CertificateUsage } from '@ca/contracts';
import { CUSTOM_EXTENSION_ARC, ExtendedKeyUsage, encodeKeyValueExtension } from '@ca/pki';

/** What a certificate says about its subject and use; issue builds it, renew copies it. */
export interface CertificateProfile {
  clientId: string;
  commonName: string;
  organization: string;
  organizationalUnit: string;
  country: string;
  usage: CertificateUsage;
  dnsNames: string[];
  mustStaple: boolean;
  /** In extension order: the n-th entry becomes `1.3.6.1.4.1.99999.2.n`. */
  customExtensions: { key: string; value: string }[];
}

/** Spec 4.1.3 usage → RFC 5280 4.2.1.12 extended key usages. */
export function extendedKeyUsagesOf(usage: CertificateUsage): ExtendedKeyUsage[] {
  if (usage === 'Server') return ['serverAuth'];
  if (usage === 'ClientAndServer') return ['serverAuth', 'clientAuth'];
  return ['clientAuth'];
}

/** Custom extensions in a stable order (by key), numbered from 1 under the custom arc. */
export function orderedCustomExtensions(
  extensions: Record<string, string> | undefined,
): { key: string; value: string }[] {
  return Object.entries(extensions ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

export function customExtensionsOf(profile: CertificateProfile): { oid: string; value: Uint8Array }[] {
  return profile.customExtensions.map(({ key, value }, index) => ({
    oid: `${CUSTOM_EXTENSION_ARC}.${index + 1}`,
    value: encodeKeyValueExtension(key, value),
  }));
}
