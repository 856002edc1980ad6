import { EXTENSION_ID } from '../extensions';
import { urisIn } from './extension-values';
import type { Lint } from './lint';
import type { TbsCertificateView } from './tbs-certificate.view';

/**
 * CRL Distribution Points and AIA locations are HTTP URLs (RFC 5280 4.2.1.13, 4.2.2.1; RFC 5019 5;
 * CA/B BR 7.1.2.11.2): no ldap, ftp, file or relative references. https is let through because an
 * operator may publish the responder behind TLS (PKI_PUBLIC_URL, see docs/lints.md).
 */
function nonHttpUri(view: TbsCertificateView, oid: string, what: string): string | undefined {
  const extension = view.extensions.get(oid);
  if (!extension) return undefined;
  const bad = urisIn(extension.value).find((uri) => !/^https?:\/\/[^/]/i.test(uri));
  return bad === undefined ? undefined : `${what} URI "${bad}" is not an http:// or https:// URL`;
}

export const URL_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_ext_crl_distribution_point_not_http',
    source: 'RFC 5280 4.2.1.13',
    check: (view) => nonHttpUri(view, EXTENSION_ID.cRLDistributionPoints, 'CRL Distribution Point'),
  },
  {
    name: 'e_ext_authority_info_access_not_http',
    source: 'RFC 5280 4.2.2.1, RFC 5019 5',
    check: (view) => nonHttpUri(view, EXTENSION_ID.authorityInfoAccess, 'Authority Information Access'),
  },
];
