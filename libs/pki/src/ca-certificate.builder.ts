import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import type { DistinguishedName } from './distinguished-name';
import {
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  extendedKeyUsageExtension,
  type KeyPurpose,
  keyIdentifier,
  keyUsageExtension,
  subjectKeyIdentifierExtension,
} from './extensions';
import { decodeIssuerCertificate } from './issuer-certificate';
import type { IssuerKey } from './leaf-certificate.builder';
import { assertTbsCertificateLints } from './lint/certificate.linter';
import { type NameConstraints, nameConstraintsExtension } from './name-constraints';
import { encodeName } from './name';
import { assertValidSerialNumber } from './serial-number';
import { signatureAlgorithmOf } from './signature-algorithm';
import type { SigningKeys } from './signing-keys';
import { encodeTime } from './validity-time';

export interface CaCertificateProfile {
  subject: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  /** DER INTEGER content octets, e.g. from `randomSerialNumber()`. */
  serialNumber: Uint8Array;
  /** basicConstraints pathLenConstraint (RFC 5280 4.2.1.9); absent: no limit. */
  pathLenConstraint?: number;
  /** Where a subordinate CA's issuer publishes: CDP and AIA (RFC 5280 4.2.1.13, 4.2.2.1). */
  crlDistributionPointUrl?: string;
  ocspUrl?: string;
  caIssuersUrl?: string;
  /**
   * extKeyUsage of a subordinate CA (RFC 5280 4.2.1.12, CA/B BR 7.1.2.10.6): the purposes of the
   * certificates it may sign; relying parties such as openssl require each leaf's EKU among them.
   */
  extendedKeyUsages?: KeyPurpose[];
  /** nameConstraints (RFC 5280 4.2.1.10), critical: the names the CA's certificates may carry. */
  nameConstraints?: NameConstraints;
}

/**
 * A v3 CA certificate (RFC 5280 4.1), DER-encoded: basicConstraints cA (critical, with the
 * profile's pathLenConstraint), keyUsage keyCertSign and cRLSign (critical), SKI and AKI.
 *
 * - Without `issuer`: a self-signed root (issuer = subject, AKI = its own SKI; RFC 5280 4.2.1.1
 *   lets a self-signed certificate omit the AKI, but openssl and most path builders use it).
 * - With `issuer`: a subordinate (issuing) CA signed by that CA: issuer Name copied from the
 *   issuer's subject, AKI = the issuer's key identifier, validity within the issuer's, plus the
 *   CDP and AIA the profile names so that relying parties can check its revocation.
 *
 * - `extendedKeyUsages` and `nameConstraints`, when the profile has them, make a technically
 *   constrained CA (RFC 5280 4.2.1.10 and 4.2.1.12).
 *
 * The signature algorithm follows the signing key (`signatureAlgorithmOf`).
 */
export async function buildCaCertificate(
  profile: CaCertificateProfile,
  keys: SigningKeys,
  issuer?: IssuerKey,
): Promise<Uint8Array> {
  assertValidSerialNumber(profile.serialNumber);
  const notBefore = encodeTime(profile.notBefore);
  const notAfter = encodeTime(profile.notAfter);
  if (notAfter.value <= notBefore.value) throw new RangeError('notAfter must be later than notBefore');
  const parent = issuer ? decodeIssuerCertificate(issuer.certificateDer) : undefined;
  if (
    parent &&
    (notBefore.value < parent.certificate.notBefore.value ||
      notAfter.value > parent.certificate.notAfter.value)
  ) {
    throw new RangeError("A subordinate CA's validity must lie within its issuer's");
  }
  const signingKey = issuer?.privateKey ?? keys.privateKey;

  const certificate = new pkijs.Certificate({
    version: 2, // v3 (RFC 5280 4.1.2.1)
    serialNumber: new asn1js.Integer({ valueHex: profile.serialNumber }),
    issuer: parent ? parent.certificate.subject : encodeName(profile.subject),
    subject: encodeName(profile.subject),
    notBefore,
    notAfter,
  });
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto());
  const keyId = keyIdentifier(certificate.subjectPublicKeyInfo);
  certificate.extensions = [
    basicConstraintsExtension({ cA: true, pathLenConstraint: profile.pathLenConstraint }),
    keyUsageExtension(['keyCertSign', 'cRLSign']),
    subjectKeyIdentifierExtension(keyId),
    authorityKeyIdentifierExtension(parent?.keyIdentifier ?? keyId),
    ...(profile.crlDistributionPointUrl
      ? [crlDistributionPointsExtension(profile.crlDistributionPointUrl)]
      : []),
    ...(profile.ocspUrl || profile.caIssuersUrl
      ? [authorityInfoAccessExtension({ ocsp: profile.ocspUrl, caIssuers: profile.caIssuersUrl })]
      : []),
    ...(profile.extendedKeyUsages ? [extendedKeyUsageExtension(profile.extendedKeyUsages)] : []),
    ...(profile.nameConstraints ? [nameConstraintsExtension(profile.nameConstraints)] : []),
  ];
  const algorithm = signatureAlgorithmOf(signingKey);
  // The linter reads the TBSCertificate as it will be signed (docs/lints.md); sign() sets it again.
  certificate.signature = new pkijs.AlgorithmIdentifier({
    algorithmId: algorithm.oid,
    ...(algorithm.coordinateOctets === 0 ? { algorithmParams: new asn1js.Null() } : {}),
  });
  assertTbsCertificateLints(new Uint8Array(certificate.encodeTBS().toBER(false)));
  await certificate.sign(signingKey, algorithm.hash, pkiCrypto(signingKey));
  // A private key that does not belong to the signing certificate would yield a CA nobody can verify.
  if (!(await certificate.verify(parent?.certificate ?? certificate, pkiCrypto()))) {
    throw new RangeError('The private key does not match the public key');
  }
  return new Uint8Array(certificate.toSchema(true).toBER(false));
}
