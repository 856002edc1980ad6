import { attributeText } from './name.view';
import { dnsNames, extendedKeyUsages, isCa, SERVER_AUTH } from './extension-values';
import type { Lint } from './lint';
import type { TbsCertificateView } from './tbs-certificate.view';

const COMMON_NAME = '2.5.4.3';
// Written like a host name: LDH labels with a dot, maybe `*.` first, last label not all digits.
const HOST_NAME =
  /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+(?=[a-z0-9-]*[a-z])[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i;

/**
 * SAN and CN of TLS server certificates (CA/B BR 7.1.4.3, RFC 6125 6.4.4). A CA whose EKU
 * includes serverAuth (a technically constrained issuing CA) names no host: not checked.
 */
export const SUBJECT_ALT_NAME_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_server_cn_not_in_san',
    source: 'CA/B BR 7.1.4.3',
    check: (view) => {
      if (isCa(view) || !extendedKeyUsages(view).includes(SERVER_AUTH)) return undefined;
      const commonName = attributeText(view.subject, COMMON_NAME);
      if (commonName === undefined || !HOST_NAME.test(commonName)) return undefined;
      return dnsNames(view).includes(commonName)
        ? undefined
        : `the CN "${commonName}" is not one of the dNSName SANs byte for byte`;
    },
  },
  {
    name: 'e_server_without_san',
    source: 'CA/B BR 7.1.2.7.12, RFC 6125 6.4.4',
    check: (view) =>
      !isCa(view) && extendedKeyUsages(view).includes(SERVER_AUTH) && dnsNames(view).length === 0
        ? 'a TLS server certificate needs at least one dNSName SAN'
        : undefined,
  },
];
