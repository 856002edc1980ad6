import { EXTENSION_ID } from '../extensions';
import { isCa } from './extension-values';
import type { Lint } from './lint';
import type { TbsCertificateView } from './tbs-certificate.view';

/** Authority and subject key identifiers (RFC 5280 4.2.1.1, 4.2.1.2). */
export const KEY_IDENTIFIER_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_ext_authority_key_identifier_missing',
    source: 'RFC 5280 4.2.1.1',
    // Only a self-signed certificate may omit it; this CA writes it in its roots too.
    check: ({ extensions }) =>
      extensions.has(EXTENSION_ID.authorityKeyIdentifier) ? undefined : 'authorityKeyIdentifier is missing',
  },
  {
    name: 'e_ext_subject_key_identifier_missing',
    source: 'RFC 5280 4.2.1.2 (MUST for CAs, SHOULD for end entities)',
    check: (view) =>
      view.extensions.has(EXTENSION_ID.subjectKeyIdentifier)
        ? undefined
        : `subjectKeyIdentifier is missing${isCa(view) ? ' from a CA certificate' : ''}`,
  },
  {
    name: 'e_ext_key_identifier_critical',
    source: 'RFC 5280 4.2.1.1, 4.2.1.2',
    check: ({ extensions }) =>
      extensions.get(EXTENSION_ID.authorityKeyIdentifier)?.critical ||
      extensions.get(EXTENSION_ID.subjectKeyIdentifier)?.critical
        ? 'key identifier extensions must not be critical'
        : undefined,
  },
];
