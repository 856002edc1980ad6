import type { webcrypto } from 'node:crypto';

import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import type { LeafSubject } from './distinguished-name';
import { decodeCertificate } from './certificate.parser';
import { contextConstructed, derBitString, derElement, derSequence, TAG } from './der-writer';
import { encodeTimeDer } from './der-time';
import { signTbs } from './ecdsa-sig-value';
import { signatureAlgorithmOf } from './signature-algorithm';
import type { KeyPurpose } from './extensions';
import { encodeLeafExtensions, isEmptySubject, keyIdentifierOfSpki } from './leaf-extensions';
import { assertTbsCertificateLints } from './lint/certificate.linter';
import { decodeIssuerCertificate, type IssuerCertificate } from './issuer-certificate';
import { spkiOfPublicKey } from './leaf-public-key';
import { encodeNameDer } from './name';
import { assertValidSerialNumber } from './serial-number';
import { encodeTime } from './validity-time';

/** The key purposes this CA issues (RFC 5280 4.2.1.12): mTLS clients, TLS servers, OCSP signers. */
export type ExtendedKeyUsage = Extract<KeyPurpose, 'clientAuth' | 'serverAuth' | 'ocspSigning'>;

export interface LeafCertificateProfile {
  /** C, O, OU, CN as given, one RDN each; may be empty when `dnsNames` names the holder. */
  subject: LeafSubject;
  /** At least the issuer's notBefore; `validityOfDays` makes both ends. */
  notBefore: Date;
  /** At most the issuer's notAfter: a certificate never outlives its CA. */
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
 * the algorithm its key signs with (`signatureAlgorithmOf`: ECDSA P-256/P-384 or RSA), DER-encoded.
 *
 * - issuer: the issuer certificate's subject, copied byte for byte so that name chaining
 *   (RFC 5280 6.1.3 (a)(4)) never depends on re-encoding;
 * - basicConstraints cA FALSE (critical), keyUsage digitalSignature [+ keyEncipherment] (critical),
 *   EKU, SKI (method 1), AKI = the issuer's SKI (RFC 5280 4.2.1.1: the AKI of a certificate is the
 *   SKI of its issuer; computed from the issuer key when the issuer certificate has no SKI);
 * - then subjectAltName, CRL Distribution Points, Authority Information Access, TLS Feature,
 *   id-pkix-ocsp-nocheck and the custom extensions, each when the profile asks for it.
 *
 * Throws CaError CERTIFICATE_LINT_FAILED when the TBSCertificate breaks a lint (docs/lints.md),
 * before anything is signed; RangeError for an invalid profile, a validity outside the issuer's, an
 * issuer that is
 * not a CA, or a private key that does not belong to the issuer certificate; TypeError for an
 * issuer key of an algorithm no CA holds.
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
  if (isEmptySubject(profile.subject) && !profile.dnsNames?.length) {
    // RFC 5280 4.1.2.6: a certificate with an empty subject names its holder in subjectAltName.
    throw new RangeError('a certificate with an empty subject needs at least one DNS name');
  }
  const issuerNotBefore = issuerCertificate.certificate.notBefore.value;
  if (notBefore.value < issuerNotBefore) {
    // A certificate claiming validity before its issuer had any (see validityOfDays).
    throw new RangeError(
      `notBefore ${notBefore.value.toISOString()} is earlier than the issuer's notBefore ${issuerNotBefore.toISOString()}`,
    );
  }
  const issuerNotAfter = issuerCertificate.certificate.notAfter.value;
  if (notAfter.value > issuerNotAfter) {
    throw new RangeError(
      `notAfter ${notAfter.value.toISOString()} is later than the issuer's notAfter ${issuerNotAfter.toISOString()}`,
    );
  }

  // Every issuance comes through here: the TBSCertificate is written as DER directly and its
  // constant parts (issuer Name, algorithm identifier, most extensions) are reused as bytes; a
  // pkijs object graph per certificate cost more than the signature.
  const spki = await spkiOfPublicKey(subjectPublicKey);
  const extensions = encodeLeafExtensions(
    profile,
    keyIdentifierOfSpki(spki),
    issuerCertificate.keyIdentifier,
  );
  const { der: algorithmDer } = signatureAlgorithmOf(issuer.privateKey);
  const tbs = derSequence(
    VERSION_3,
    derElement(TAG.integer, profile.serialNumber),
    algorithmDer, // RFC 5280 4.1.2.3: the same as signatureAlgorithm below
    issuerNameDer(issuerCertificate),
    derSequence(encodeTimeDer(notBefore.value), encodeTimeDer(notAfter.value)),
    encodeNameDer(profile.subject),
    spki,
    derElement(contextConstructed(3), derSequence(...extensions.map(({ der }) => der))),
  );
  assertTbsCertificateLints(tbs); // docs/lints.md: nothing that breaks the profile is signed
  const der = derSequence(tbs, algorithmDer, derBitString(await signTbs(tbs, issuer.privateKey)));
  if (!matchingIssuerKeys.get(issuer.privateKey)?.has(issuerCertificate.certificate)) {
    await assertSignedByIssuer(decodeCertificate(der), issuer.privateKey, issuerCertificate.certificate);
  }
  return der;
}

/** [0] EXPLICIT Version v3 (RFC 5280 4.1.2.1): INTEGER 2. */
const VERSION_3 = Uint8Array.of(0xa0, 0x03, TAG.integer, 0x01, 0x02);

// The issuer Name of every leaf: the issuer certificate's subject, re-emitted from the bytes it
// was decoded from (pkijs keeps them), encoded once per decoded issuer.
const issuerNames = new WeakMap<IssuerCertificate, Uint8Array>();

function issuerNameDer(issuer: IssuerCertificate): Uint8Array {
  let name = issuerNames.get(issuer);
  if (!name) {
    name = new Uint8Array(issuer.certificate.subject.toSchema().toBER(false));
    issuerNames.set(issuer, name);
  }
  return name;
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
