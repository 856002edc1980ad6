import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { decodeCertificate } from './certificate.parser';
import { pkiCrypto } from './crypto-engine';
import {
  EXTENSION_ID,
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  keyIdentifier,
  keyUsageExtension,
  subjectKeyIdentifierExtension,
} from './extensions';
import { decodeIssuerCertificate } from './issuer-certificate';
import type { IssuerKey } from './leaf-certificate.builder';
import { assertTbsCertificateLints } from './lint/certificate.linter';
import { assertValidSerialNumber } from './serial-number';
import { signatureAlgorithmOf } from './signature-algorithm';
import { encodeTime } from './validity-time';

export interface CrossCertificateProfile {
  /** DER INTEGER content octets, e.g. from `randomSerialNumber()`. */
  serialNumber: Uint8Array;
  /** Where the issuing (old) root publishes: CDP and AIA (RFC 5280 4.2.1.13, 4.2.2.1). */
  crlDistributionPointUrl?: string;
  caIssuersUrl?: string;
}

/**
 * A cross certificate for root renewal (docs/api.md#renew-the-root), DER-encoded: the new root's
 * subject Name and SubjectPublicKeyInfo, copied byte for byte from `newRootDer`, signed by the old
 * root (`issuer`), so a relying party that trusts only the old root reaches the new one
 * (leaf → issuing CA → cross → old root), as ISRG Root X2 was cross-signed by X1.
 *
 * - issuer Name = the old root's subject, AKI = the old root's key identifier (RFC 5280 4.2.1.1);
 * - SKI = the new root's SKI, so path builders match it to what the new root signed (4.2.1.2);
 * - basicConstraints cA with the new root's pathLenConstraint, keyUsage keyCertSign and cRLSign;
 * - validity: the new root's, cut to lie within the old root's.
 *
 * When the two roots share their subject (this system's choice), the cross certificate is
 * self-issued and not counted against the old root's pathLenConstraint (RFC 5280 6.1.4 (l)).
 */
export async function buildCrossCertificate(
  newRootDer: Uint8Array,
  profile: CrossCertificateProfile,
  issuer: IssuerKey,
): Promise<Uint8Array> {
  assertValidSerialNumber(profile.serialNumber);
  const newRoot = decodeIssuerCertificate(newRootDer);
  const oldRoot = decodeIssuerCertificate(issuer.certificateDer);
  const subject = decodeCertificate(newRootDer);
  const notBefore = later(subject.notBefore.value, oldRoot.certificate.notBefore.value);
  const notAfter = earlier(subject.notAfter.value, oldRoot.certificate.notAfter.value);
  if (notAfter.getTime() <= notBefore.getTime()) {
    throw new RangeError("The new root's validity does not overlap the old root's");
  }
  const certificate = new pkijs.Certificate({
    version: 2, // v3 (RFC 5280 4.1.2.1)
    serialNumber: new asn1js.Integer({ valueHex: profile.serialNumber }),
    issuer: oldRoot.certificate.subject,
    subject: subject.subject,
    notBefore: encodeTime(notBefore),
    notAfter: encodeTime(notAfter),
    subjectPublicKeyInfo: subject.subjectPublicKeyInfo,
  });
  certificate.extensions = [
    basicConstraintsExtension({ cA: true, pathLenConstraint: pathLenConstraintOf(subject) }),
    keyUsageExtension(['keyCertSign', 'cRLSign']),
    subjectKeyIdentifierExtension(newRoot.keyIdentifier),
    authorityKeyIdentifierExtension(oldRoot.keyIdentifier),
    ...(profile.crlDistributionPointUrl
      ? [crlDistributionPointsExtension(profile.crlDistributionPointUrl)]
      : []),
    ...(profile.caIssuersUrl ? [authorityInfoAccessExtension({ caIssuers: profile.caIssuersUrl })] : []),
  ];
  const algorithm = signatureAlgorithmOf(issuer.privateKey);
  certificate.signature = new pkijs.AlgorithmIdentifier({
    algorithmId: algorithm.oid,
    ...(algorithm.coordinateOctets === 0 ? { algorithmParams: new asn1js.Null() } : {}),
  });
  assertTbsCertificateLints(new Uint8Array(certificate.encodeTBS().toBER(false))); // docs/lints.md
  await certificate.sign(issuer.privateKey, algorithm.hash, pkiCrypto(issuer.privateKey));
  if (!(await certificate.verify(oldRoot.certificate, pkiCrypto()))) {
    throw new RangeError("The private key does not match the old root's public key");
  }
  // The key identifier the new root names must be its key's: else path builders would not match.
  const computed = keyIdentifier(subject.subjectPublicKeyInfo);
  if (!Buffer.from(computed).equals(Buffer.from(newRoot.keyIdentifier))) {
    throw new RangeError("The new root's SKI is not the SHA-1 of its key (RFC 5280 4.2.1.2 method 1)");
  }
  return new Uint8Array(certificate.toSchema(true).toBER(false));
}

function pathLenConstraintOf(certificate: pkijs.Certificate): number | undefined {
  const value = certificate.extensions?.find(
    ({ extnID }) => extnID === EXTENSION_ID.basicConstraints,
  )?.parsedValue;
  if (!(value instanceof pkijs.BasicConstraints) || value.pathLenConstraint === undefined) return undefined;
  const length = value.pathLenConstraint;
  return typeof length === 'number' ? length : length.valueBlock.valueDec;
}

function later(a: Date, b: Date): Date {
  return a.getTime() >= b.getTime() ? a : b;
}

function earlier(a: Date, b: Date): Date {
  return a.getTime() <= b.getTime() ? a : b;
}
