import { isCa, KEY_USAGE_BIT, keyUsageBits } from './extension-values';
import type { Lint } from './lint';
import type { TbsCertificateView } from './tbs-certificate.view';

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';

/** keyUsage against the kind of certificate and key (RFC 5280 4.2.1.3, RFC 8813 3). */
export const KEY_USAGE_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_ext_key_usage_missing',
    source: 'RFC 5280 4.2.1.3 (CA/B BR 7.1.2)',
    check: (view) => (keyUsageBits(view) === undefined ? 'keyUsage is missing' : undefined),
  },
  {
    name: 'e_ec_key_usage_encipherment',
    source: 'RFC 8813 3',
    check: (view) => {
      const bits = keyUsageBits(view);
      if (view.keyAlgorithm !== EC_PUBLIC_KEY || !bits) return undefined;
      if (bits.has(KEY_USAGE_BIT.keyEncipherment)) return 'an EC key cannot do keyEncipherment';
      if (bits.has(KEY_USAGE_BIT.dataEncipherment)) return 'an EC key cannot do dataEncipherment';
      return undefined;
    },
  },
  {
    name: 'e_ca_key_usage_cert_sign_crl_sign',
    source: 'RFC 5280 4.2.1.3, 4.2.1.9',
    check: (view) => {
      const bits = keyUsageBits(view);
      if (!isCa(view) || !bits) return undefined;
      return bits.has(KEY_USAGE_BIT.keyCertSign) && bits.has(KEY_USAGE_BIT.cRLSign)
        ? undefined
        : 'a CA certificate needs keyCertSign and cRLSign';
    },
  },
  {
    name: 'e_leaf_key_usage_cert_sign',
    source: 'RFC 5280 4.2.1.3',
    check: (view) =>
      !isCa(view) && keyUsageBits(view)?.has(KEY_USAGE_BIT.keyCertSign)
        ? 'keyCertSign is only for CA certificates'
        : undefined,
  },
];
