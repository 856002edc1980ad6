import { EXTENSION_ID } from '../extensions';
import { CUSTOM_EXTENSION_ARC } from '../key-value-extension';
import { isCa } from './extension-values';
import type { Lint } from './lint';
import type { TbsCertificateView } from './tbs-certificate.view';

/** Extension criticality (RFC 5280 4.2.1.x), and no extension twice (RFC 5280 4.2). */
export const CRITICALITY_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_ext_duplicate_extension',
    source: 'RFC 5280 4.2',
    check: ({ duplicateExtensions }) =>
      duplicateExtensions.length > 0
        ? `extensions appear twice: ${duplicateExtensions.join(', ')}`
        : undefined,
  },
  {
    name: 'e_ext_basic_constraints_not_critical',
    source: 'RFC 5280 4.2.1.9',
    check: (view) =>
      isCa(view) && !view.extensions.get(EXTENSION_ID.basicConstraints)?.critical
        ? 'basicConstraints of a CA must be critical'
        : undefined,
  },
  {
    name: 'e_ext_key_usage_not_critical',
    source: 'RFC 5280 4.2.1.3 (CA/B BR 7.1.2)',
    check: ({ extensions }) => {
      const keyUsage = extensions.get(EXTENSION_ID.keyUsage);
      return keyUsage && !keyUsage.critical ? 'keyUsage must be critical' : undefined;
    },
  },
  {
    name: 'e_ext_extended_key_usage_critical',
    source: 'CA/B BR 7.1.2.3, RFC 5280 4.2.1.12',
    check: ({ extensions }) =>
      extensions.get(EXTENSION_ID.extKeyUsage)?.critical ? 'extKeyUsage must not be critical' : undefined,
  },
  {
    name: 'e_ext_san_not_critical_without_subject',
    source: 'RFC 5280 4.2.1.6',
    check: ({ subject, extensions }) => {
      const san = extensions.get(EXTENSION_ID.subjectAltName);
      return subject.length === 0 && san && !san.critical
        ? 'subjectAltName must be critical when the subject is empty'
        : undefined;
    },
  },
  {
    name: 'e_ext_custom_extension_critical',
    source: 'RFC 5280 4.2 (a relying party rejects an unknown critical extension)',
    check: ({ extensions }) => {
      for (const [oid, { critical }] of extensions) {
        if (critical && oid.startsWith(`${CUSTOM_EXTENSION_ARC}.`))
          return `custom extension ${oid} is critical`;
      }
      return undefined;
    },
  },
];
