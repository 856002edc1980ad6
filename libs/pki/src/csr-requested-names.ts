import * as pkijs from 'pkijs';
import { EXTENSION_ID, GENERAL_NAME_TYPE } from './extensions';
import { PkiFormatError } from './pki-format.error';

/** PKCS#9 extensionRequest (RFC 2985 5.4.2): where a CSR asks for extensions such as SANs. */
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const COMMON_NAME = '2.5.4.3';

/** The names a CSR asks for: its subject CN and the dNSNames of a requested subjectAltName. */
export interface CsrRequestedNames {
  commonName?: string;
  dnsNames: string[];
  /** Requested SAN entries of other kinds (IP addresses, e-mail, URIs). */
  otherNames: number;
}

/**
 * Reads the names of a DER PKCS#10 request (RFC 2986), for a protocol that must compare them with
 * what was authorized (ACME finalize, RFC 8555 7.4). Use `parseCertificationRequest` for the key
 * and the signature. Throws `PkiFormatError` when the request or its extension request is unreadable.
 */
export function csrRequestedNames(der: Uint8Array): CsrRequestedNames {
  let request: pkijs.CertificationRequest;
  try {
    request = pkijs.CertificationRequest.fromBER(der);
  } catch {
    throw new PkiFormatError('CertificationRequest: not DER');
  }
  const cn = request.subject.typesAndValues.find((tv) => tv.type === COMMON_NAME)?.value.valueBlock
    .value as unknown;
  const result: CsrRequestedNames = {
    commonName: typeof cn === 'string' ? cn : undefined,
    dnsNames: [],
    otherNames: 0,
  };
  try {
    for (const attribute of request.attributes ?? []) {
      if (attribute.type !== EXTENSION_REQUEST) continue;
      for (const value of attribute.values) {
        for (const extension of new pkijs.Extensions({ schema: value }).extensions) {
          if (extension.extnID !== EXTENSION_ID.subjectAltName) continue;
          for (const name of pkijs.GeneralNames.fromBER(extension.extnValue.valueBlock.valueHexView).names) {
            if (name.type === GENERAL_NAME_TYPE.dNSName) result.dnsNames.push(String(name.value));
            else result.otherNames++;
          }
        }
      }
    }
  } catch {
    throw new PkiFormatError('CertificationRequest: unreadable extension request');
  }
  return result;
}
