import * as pkijs from 'pkijs';
import { pkiCrypto } from './crypto-engine';
import { EXTENSION_ID, GENERAL_NAME_TYPE } from './extensions';
import { PkiFormatError } from './pki-format.error';

/** PKCS#9 extensionRequest (RFC 2985 5.4.2): where a CSR asks for extensions such as SANs. */
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const COMMON_NAME = '2.5.4.3';

/** What a CA takes from a PKCS#10 request (RFC 2986), after checking its self-signature. */
export interface CertificationRequestInfo {
  /** DER SubjectPublicKeyInfo of the requested key. */
  subjectPublicKeyInfo: Uint8Array;
  commonName?: string;
  /** dNSName entries of a requested subjectAltName extension. */
  dnsNames: string[];
  /** Whether the signature verifies with the request's own key (proof of possession). */
  signatureValid: boolean;
}

/** Reads a DER PKCS#10 request; throws `PkiFormatError` when it is not one. */
export async function parseCertificationRequest(der: Uint8Array): Promise<CertificationRequestInfo> {
  let request: pkijs.CertificationRequest;
  try {
    request = pkijs.CertificationRequest.fromBER(der);
  } catch {
    throw new PkiFormatError('not a DER PKCS#10 certification request');
  }
  const commonName = request.subject.typesAndValues.find((tv) => tv.type === COMMON_NAME)?.value.valueBlock
    .value as string | undefined;
  const dnsNames: string[] = [];
  for (const attribute of request.attributes ?? []) {
    if (attribute.type !== EXTENSION_REQUEST) continue;
    for (const value of attribute.values) {
      const extensions = new pkijs.Extensions({ schema: value });
      for (const extension of extensions.extensions) {
        if (extension.extnID !== EXTENSION_ID.subjectAltName) continue;
        const names = pkijs.GeneralNames.fromBER(extension.extnValue.valueBlock.valueHexView);
        for (const name of names.names) {
          if (name.type === GENERAL_NAME_TYPE.dNSName) dnsNames.push(String(name.value));
          else throw new PkiFormatError('only DNS names are accepted in the subjectAltName');
        }
      }
    }
  }
  let signatureValid = false;
  try {
    signatureValid = await request.verify(pkiCrypto());
  } catch {
    signatureValid = false;
  }
  return {
    subjectPublicKeyInfo: new Uint8Array(request.subjectPublicKeyInfo.toSchema().toBER()),
    commonName,
    dnsNames,
    signatureValid,
  };
}
