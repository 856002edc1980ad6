import { createHash } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import type { CertificateInfo } from './certificate-info';
import {
  ACCESS_METHOD_ID,
  EXTENSION_ID,
  GENERAL_NAME_TYPE,
  KEY_PURPOSE_ID,
  TLS_FEATURE_STATUS_REQUEST,
} from './extensions';
import { toHex } from './hex';
import { CUSTOM_EXTENSION_ARC, decodeKeyValueExtension } from './key-value-extension';
import { decodeName } from './name';
import { PkiFormatError } from './pki-format.error';
import { serialToHex } from './serial-number';
import { readTbsCertificateFields } from './tbs-certificate.reader';

// RFC 5280 4.2.1.12 names of the key purposes, by OID.
const KEY_PURPOSE_NAME = new Map<string, string>([
  ...Object.entries(KEY_PURPOSE_ID).map(([name, oid]): [string, string] => [oid, name]),
  ['2.5.29.37.0', 'anyExtendedKeyUsage'],
]);

/** Reads a DER X.509 certificate. Throws `PkiFormatError` for anything else. Does not verify it. */
export function parseCertificate(der: Uint8Array): CertificateInfo {
  const certificate = decodeCertificate(der);
  const extensions = certificate.extensions ?? [];
  const find = (extnID: string) => extensions.find((extension) => extension.extnID === extnID);
  const basicConstraints = find(EXTENSION_ID.basicConstraints);
  const subjectKeyIdentifier = find(EXTENSION_ID.subjectKeyIdentifier);
  const authorityKeyId = parsed(
    find(EXTENSION_ID.authorityKeyIdentifier),
    pkijs.AuthorityKeyIdentifier,
  )?.keyIdentifier;
  const accessDescriptions =
    parsed(find(EXTENSION_ID.authorityInfoAccess), pkijs.InfoAccess)?.accessDescriptions ?? [];
  const accessUrls = (method: string) =>
    uris(
      accessDescriptions
        .filter((access) => access.accessMethod === method)
        .map((access) => access.accessLocation),
    );
  return {
    serialNumberHex: serialToHex(certificate.serialNumber.valueBlock.valueHexView),
    subject: decodeName(certificate.subject),
    subjectDer: new Uint8Array(readTbsCertificateFields(der).subjectDer),
    issuer: decodeName(certificate.issuer),
    notBefore: certificate.notBefore.value,
    notAfter: certificate.notAfter.value,
    isCa: basicConstraints?.parsedValue instanceof pkijs.BasicConstraints && basicConstraints.parsedValue.cA,
    ...(subjectKeyIdentifier?.parsedValue instanceof asn1js.OctetString && {
      subjectKeyIdentifierHex: toHex(subjectKeyIdentifier.parsedValue.valueBlock.valueHexView),
    }),
    ...(authorityKeyId && { authorityKeyIdentifierHex: toHex(authorityKeyId.valueBlock.valueHexView) }),
    sha256FingerprintHex: createHash('sha256').update(der).digest('hex').toUpperCase(),
    extendedKeyUsages: (parsed(find(EXTENSION_ID.extKeyUsage), pkijs.ExtKeyUsage)?.keyPurposes ?? []).map(
      (oid) => KEY_PURPOSE_NAME.get(oid) ?? oid,
    ),
    dnsNames: (parsed(find(EXTENSION_ID.subjectAltName), pkijs.AltName)?.altNames ?? [])
      .filter((name) => name.type === GENERAL_NAME_TYPE.dNSName)
      .map((name) => name.value as string),
    crlDistributionPointUrls: (
      parsed(find(EXTENSION_ID.cRLDistributionPoints), pkijs.CRLDistributionPoints)?.distributionPoints ?? []
    ).flatMap(({ distributionPoint }) => (Array.isArray(distributionPoint) ? uris(distributionPoint) : [])),
    ocspUrls: accessUrls(ACCESS_METHOD_ID.ocsp),
    caIssuersUrls: accessUrls(ACCESS_METHOD_ID.caIssuers),
    mustStaple: tlsFeatures(find(EXTENSION_ID.tlsFeature)).includes(TLS_FEATURE_STATUS_REQUEST),
    extensionOids: extensions.map(({ extnID }) => extnID),
    customExtensions: extensions
      .filter(({ extnID }) => extnID.startsWith(`${CUSTOM_EXTENSION_ARC}.`))
      .flatMap(({ extnID, extnValue }) => {
        // Only our key/value shape is read back; another issuer's encoding under the arc is skipped.
        try {
          return [{ oid: extnID, ...decodeKeyValueExtension(extnValue.valueBlock.valueHexView) }];
        } catch {
          return [];
        }
      }),
  };
}

/** A DER certificate as pkijs reads it (kept, for instance, to copy its subject byte for byte). */
export function decodeCertificate(der: Uint8Array): pkijs.Certificate {
  const asn1 = asn1js.fromBER(der);
  if (asn1.offset === -1) throw new PkiFormatError(`Not DER: ${asn1.result.error}`);
  if (asn1.offset !== der.byteLength) throw new PkiFormatError('Trailing bytes after the DER certificate');
  try {
    return new pkijs.Certificate({ schema: asn1.result });
  } catch (error) {
    throw new PkiFormatError(`Not an X.509 certificate: ${(error as Error).message}`);
  }
}

/**
 * The value pkijs decoded for an extension, or undefined when the certificate lacks it. pkijs does
 * not throw for a malformed value but hands back an empty object with `parsingError`; that is a
 * malformed certificate here.
 */
function parsed<T extends object>(
  extension: pkijs.Extension | undefined,
  type: new (...args: never[]) => T,
): T | undefined {
  if (!extension) return undefined;
  const value: unknown = extension.parsedValue;
  if (!(value instanceof type) || 'parsingError' in value) {
    throw new PkiFormatError(`Malformed value of extension ${extension.extnID}`);
  }
  return value;
}

function uris(names: readonly pkijs.GeneralName[]): string[] {
  return names
    .filter((name) => name.type === GENERAL_NAME_TYPE.uniformResourceIdentifier)
    .map((name) => name.value as string);
}

/** RFC 7633 Features ::= SEQUENCE OF INTEGER. */
function tlsFeatures(extension: pkijs.Extension | undefined): number[] {
  if (!extension) return [];
  const value: unknown = extension.parsedValue;
  const features = value instanceof asn1js.Sequence ? value.valueBlock.value : [];
  if (!(value instanceof asn1js.Sequence) || !features.every((item) => item instanceof asn1js.Integer)) {
    throw new PkiFormatError(`Malformed value of extension ${extension.extnID}`);
  }
  return features.map((item) => (item as asn1js.Integer).valueBlock.valueDec);
}
