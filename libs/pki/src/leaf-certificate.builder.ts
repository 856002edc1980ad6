import type { webcrypto } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import { encodeDerSequence } from './der-sequence';
import type { DistinguishedName } from './distinguished-name';
import {
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  customExtension,
  extendedKeyUsageExtension,
  keyIdentifier,
  type KeyPurpose,
  keyUsageExtension,
  ocspNoCheckExtension,
  subjectAltNameExtension,
  subjectKeyIdentifierExtension,
  tlsFeatureMustStapleExtension,
} from './extensions';
import { decodeIssuerCertificate, type IssuerCertificate } from './issuer-certificate';
import { encodeName } from './name';
import { assertValidSerialNumber } from './serial-number';
import { encodeTime } from './validity-time';

/** The key purposes this CA issues (RFC 5280 4.2.1.12): mTLS clients, TLS servers, OCSP signers. */
export type ExtendedKeyUsage = Extract<KeyPurpose, 'clientAuth' | 'serverAuth' | 'ocspSigning'>;

export interface LeafCertificateProfile {
  /** C, O, OU, CN as given, one RDN each. */
  subject: DistinguishedName;
  notBefore: Date;
  /** At most the issuer's notAfter (CONTRACT section 5: a certificate never outlives its CA). */
  notAfter: Date;
  /** DER INTEGER content octets, e.g. from `randomSerialNumber()`. */
  serialNumber: Uint8Array;
  /** At least one; the EKU extension, not critical. */
  extendedKeyUsages: ExtendedKeyUsage[];
  /** subjectAltName dNSName entries, single-label wildcards allowed; no extension when empty. */
  dnsNames?: string[];
  /** TLS Feature status_request (RFC 7633). */
  mustStaple?: boolean;
  /** Pre-encoded extnValue contents (one DER element each), not critical, in the order given. */
  customExtensions?: { oid: string; value: Uint8Array }[];
  /** The one fullName URI of the CRL Distribution Points. */
  crlDistributionPointUrl?: string;
  /** Authority Information Access id-ad-ocsp. */
  ocspUrl?: string;
  /** Authority Information Access id-ad-caIssuers. */
  caIssuersUrl?: string;
  /** id-pkix-ocsp-nocheck, for a delegated OCSP signer (RFC 6960 4.2.2.2.1). */
  ocspNoCheck?: boolean;
  /** keyUsage keyEncipherment besides digitalSignature, for RSA server keys (RFC 5246 7.4.7.1). */
  keyEncipherment?: boolean;
}

/** The CA that signs: its DER certificate and the private key belonging to it. */
export interface IssuerKey {
  certificateDer: Uint8Array;
  /** May be non-extractable: it is only used through WebCrypto `sign`. */
  privateKey: webcrypto.CryptoKey;
}

/**
 * An end-entity v3 certificate (RFC 5280 4.1) for `subjectPublicKey`, signed by the issuer CA with
 * SHA-256 (ecdsa-with-SHA256 for a P-256 CA key), DER-encoded.
 *
 * - issuer: the issuer certificate's subject, copied byte for byte so that name chaining
 *   (RFC 5280 6.1.3 (a)(4)) never depends on re-encoding;
 * - basicConstraints cA FALSE (critical), keyUsage digitalSignature [+ keyEncipherment] (critical),
 *   EKU, SKI (method 1), AKI = the issuer's SKI (RFC 5280 4.2.1.1: the AKI of a certificate is the
 *   SKI of its issuer; computed from the issuer key when the issuer certificate has no SKI);
 * - then subjectAltName, CRL Distribution Points, Authority Information Access, TLS Feature,
 *   id-pkix-ocsp-nocheck and the custom extensions, each when the profile asks for it.
 *
 * Throws RangeError for an invalid profile, a validity ending after the issuer's, an issuer that is
 * not a CA, or a private key that does not belong to the issuer certificate.
 */
export async function buildLeafCertificate(
  profile: LeafCertificateProfile,
  subjectPublicKey: webcrypto.CryptoKey,
  issuer: IssuerKey,
): Promise<Uint8Array> {
  if (subjectPublicKey.type !== 'public') throw new TypeError('subjectPublicKey must be a public key');
  assertValidSerialNumber(profile.serialNumber);
  const issuerCertificate = decodeIssuerCertificate(issuer.certificateDer);
  const notBefore = encodeTime(profile.notBefore);
  const notAfter = encodeTime(profile.notAfter);
  if (notAfter.value <= notBefore.value) throw new RangeError('notAfter must be later than notBefore');
  const issuerNotAfter = issuerCertificate.certificate.notAfter.value;
  if (notAfter.value > issuerNotAfter) {
    throw new RangeError(
      `notAfter ${notAfter.value.toISOString()} is later than the issuer's notAfter ${issuerNotAfter.toISOString()}`,
    );
  }

  const certificate = new pkijs.Certificate({
    version: 2, // v3 (RFC 5280 4.1.2.1)
    serialNumber: new asn1js.Integer({ valueHex: profile.serialNumber }),
    issuer: issuerCertificate.certificate.subject, // re-emitted from the bytes it was decoded from
    subject: encodeName(profile.subject),
    notBefore,
    notAfter,
  });
  await certificate.subjectPublicKeyInfo.importKey(subjectPublicKey, pkiCrypto());
  certificate.extensions = leafExtensions(profile, certificate.subjectPublicKeyInfo, issuerCertificate);
  await certificate.sign(issuer.privateKey, 'SHA-256', pkiCrypto(issuer.privateKey));
  await assertSignedByIssuer(certificate, issuer.privateKey, issuerCertificate.certificate);
  // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue } (RFC 5280 4.1),
  // around exactly the TBSCertificate octets that were signed.
  return encodeDerSequence([
    certificate.tbsView,
    new Uint8Array(certificate.signatureAlgorithm.toSchema().toBER(false)),
    new Uint8Array(certificate.signatureValue.toBER(false)),
  ]);
}

// Private keys already seen to belong to an issuer certificate (a key's material never changes).
const matchingIssuerKeys = new WeakMap<webcrypto.CryptoKey, WeakSet<pkijs.Certificate>>();

/**
 * A CA key that does not belong to the issuer certificate would yield a leaf nobody can verify.
 * The signature is checked the first time a key object signs under an issuer certificate.
 */
async function assertSignedByIssuer(
  certificate: pkijs.Certificate,
  privateKey: webcrypto.CryptoKey,
  issuerCertificate: pkijs.Certificate,
): Promise<void> {
  if (matchingIssuerKeys.get(privateKey)?.has(issuerCertificate)) return;
  if (!(await certificate.verify(issuerCertificate, pkiCrypto()))) {
    throw new RangeError('The issuer private key does not match the issuer certificate');
  }
  const issuers = matchingIssuerKeys.get(privateKey) ?? new WeakSet<pkijs.Certificate>();
  matchingIssuerKeys.set(privateKey, issuers.add(issuerCertificate));
}

function leafExtensions(
  profile: LeafCertificateProfile,
  subjectPublicKeyInfo: pkijs.PublicKeyInfo,
  issuer: IssuerCertificate,
): pkijs.Extension[] {
  const extensions = [
    basicConstraintsExtension({ cA: false }),
    keyUsageExtension(
      profile.keyEncipherment ? ['digitalSignature', 'keyEncipherment'] : ['digitalSignature'],
    ),
    extendedKeyUsageExtension(profile.extendedKeyUsages),
    subjectKeyIdentifierExtension(keyIdentifier(subjectPublicKeyInfo)),
    authorityKeyIdentifierExtension(issuer.keyIdentifier),
  ];
  if (profile.dnsNames?.length) extensions.push(subjectAltNameExtension(profile.dnsNames));
  if (profile.crlDistributionPointUrl !== undefined) {
    extensions.push(crlDistributionPointsExtension(profile.crlDistributionPointUrl));
  }
  if (profile.ocspUrl !== undefined || profile.caIssuersUrl !== undefined) {
    extensions.push(authorityInfoAccessExtension({ ocsp: profile.ocspUrl, caIssuers: profile.caIssuersUrl }));
  }
  if (profile.mustStaple) extensions.push(tlsFeatureMustStapleExtension());
  if (profile.ocspNoCheck) extensions.push(ocspNoCheckExtension());
  for (const { oid, value } of profile.customExtensions ?? []) extensions.push(customExtension(oid, value));

  // RFC 5280 4.2: a certificate MUST NOT include more than one instance of an extension.
  const seen = new Set<string>();
  for (const { extnID } of extensions) {
    if (seen.has(extnID)) throw new RangeError(`Extension ${extnID} would appear twice`);
    seen.add(extnID);
  }
  return extensions;
}
