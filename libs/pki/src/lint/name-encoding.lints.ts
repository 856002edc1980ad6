import type { Lint } from './lint';
import type { NameAttribute } from './name.view';
import type { TbsCertificateView } from './tbs-certificate.view';

const COUNTRY = '2.5.4.6';
const PRINTABLE_STRING = 0x13;
const UTF8_STRING = 0x0c;

/**
 * Name encodings (RFC 5280 4.1.2.4 and Appendix A.1): countryName a PrintableString of two
 * characters, every other DirectoryString UTF8String or PrintableString, no empty RDN or value.
 */
export function nameEncodingProblem(name: NameAttribute[][], what: string): string | undefined {
  for (const rdn of name) {
    if (rdn.length === 0) return `the ${what} has an empty RDN`;
    for (const { type, tag, value } of rdn) {
      if (value.length === 0) return `the ${what} has an empty ${type} value`;
      if (type === COUNTRY) {
        if (tag !== PRINTABLE_STRING || value.length !== 2) {
          return `the ${what} countryName must be a PrintableString of 2 characters`;
        }
      } else if (tag !== UTF8_STRING && tag !== PRINTABLE_STRING) {
        return `the ${what} ${type} must be a UTF8String or PrintableString, not tag 0x${tag.toString(16)}`;
      }
    }
  }
  return undefined;
}

export const NAME_ENCODING_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_subject_name_encoding',
    source: 'RFC 5280 4.1.2.6, Appendix A.1',
    check: ({ subject }) => nameEncodingProblem(subject, 'subject'),
  },
  {
    name: 'e_issuer_name_encoding',
    source: 'RFC 5280 4.1.2.4, Appendix A.1',
    check: ({ issuer }) =>
      issuer.length === 0 ? 'the issuer Name is empty' : nameEncodingProblem(issuer, 'issuer'),
  },
];
