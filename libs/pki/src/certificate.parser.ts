import { createHash } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import type { CertificateInfo } from './certificate-info';
import { EXTENSION_ID } from './extensions';
import { toHex } from './hex';
import { decodeName } from './name';
import { PkiFormatError } from './pki-format.error';
import { serialToHex } from './serial-number';

/** Reads a DER X.509 certificate. Throws `PkiFormatError` for anything else. Does not verify it. */
export function parseCertificate(der: Uint8Array): CertificateInfo {
  const certificate = decodeCertificate(der);
  const extensions = certificate.extensions ?? [];
  const basicConstraints = extensions.find(({ extnID }) => extnID === EXTENSION_ID.basicConstraints);
  const subjectKeyIdentifier = extensions.find(({ extnID }) => extnID === EXTENSION_ID.subjectKeyIdentifier);
  return {
    serialNumberHex: serialToHex(certificate.serialNumber.valueBlock.valueHexView),
    subject: decodeName(certificate.subject),
    issuer: decodeName(certificate.issuer),
    notBefore: certificate.notBefore.value,
    notAfter: certificate.notAfter.value,
    isCa: basicConstraints?.parsedValue instanceof pkijs.BasicConstraints && basicConstraints.parsedValue.cA,
    ...(subjectKeyIdentifier?.parsedValue instanceof asn1js.OctetString && {
      subjectKeyIdentifierHex: toHex(subjectKeyIdentifier.parsedValue.valueBlock.valueHexView),
    }),
    sha256FingerprintHex: createHash('sha256').update(der).digest('hex').toUpperCase(),
  };
}

function decodeCertificate(der: Uint8Array): pkijs.Certificate {
  const asn1 = asn1js.fromBER(der);
  if (asn1.offset === -1) throw new PkiFormatError(`Not DER: ${asn1.result.error}`);
  if (asn1.offset !== der.byteLength) throw new PkiFormatError('Trailing bytes after the DER certificate');
  try {
    return new pkijs.Certificate({ schema: asn1.result });
  } catch (error) {
    throw new PkiFormatError(`Not an X.509 certificate: ${(error as Error).message}`);
  }
}
