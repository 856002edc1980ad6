import { createHash } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { parseCertificate } from './certificate.parser';
import {
  TAG,
  contextConstructed,
  contextPrimitive,
  derElement,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  derUnsignedInteger,
} from './der-writer';
import { type Pkcs12Encryption, pkcs12Encrypt, pkcs12MacData } from './pkcs12-encryption';
import { PkiFormatError } from './pki-format.error';

export type { Pkcs12Encryption } from './pkcs12-encryption';

/** What goes into the bundle: the holder's key and certificate, and the CA that issued it. */
export interface Pkcs12Contents {
  /** DER PKCS#8 PrivateKeyInfo (RFC 5208 section 5). */
  privateKeyPkcs8: Uint8Array;
  certificateDer: Uint8Array;
  /** Issuer chain, closest first (here: the tenant's root). */
  caCertificatesDer: Uint8Array[];
  /**
   * friendlyName of the key and its certificate (RFC 2985 5.5.1), which key stores show as the entry's
   * name or alias; the certificate's commonName when absent.
   */
  friendlyName?: string;
}

// RFC 7292 appendix D: bag types; RFC 2985 5.5.1/5.5.2: bag attributes; RFC 5652: content types.
const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBagShrouded: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
} as const;

/**
 * A password-protected PKCS#12 (RFC 7292), written as OpenSSL writes one so that OpenSSL, GnuTLS,
 * Java's keytool, Node's `tls` and the usual key stores open it: the certificates in an encrypted
 * SafeContents, the key in a shrouded key bag, a password MAC over both; 8-octet salts and 2048
 * iterations (see pkcs12-encryption.ts for the two profiles). The key and its certificate carry the
 * same friendlyName and localKeyID (the SHA-1 of the certificate, as OpenSSL computes it), which is
 * how readers pair them.
 */
export async function buildPkcs12(
  contents: Pkcs12Contents,
  password: string,
  encryption: Pkcs12Encryption = 'modern',
): Promise<Uint8Array> {
  if (password.length === 0) throw new RangeError('A PKCS#12 password must not be empty');
  assertDer(contents.privateKeyPkcs8, pkijs.PrivateKeyInfo, 'PKCS#8 private key');
  const certificate = parseCertificate(contents.certificateDer);
  contents.caCertificatesDer.forEach((der) => assertDer(der, pkijs.Certificate, 'CA certificate'));

  const friendlyName = contents.friendlyName ?? certificate.subject.commonName;
  const holderAttributes = derSetOf([
    attribute(OID.localKeyId, derOctetString(createHash('sha1').update(contents.certificateDer).digest())),
    ...(friendlyName ? [attribute(OID.friendlyName, bmpString(friendlyName))] : []),
  ]);

  const certificates = derSequence(
    certBag(contents.certificateDer, holderAttributes),
    ...contents.caCertificatesDer.map((der) => certBag(der)),
  );
  const shroudedKey = await pkcs12Encrypt(encryption, password, contents.privateKeyPkcs8);
  const keyBag = safeBag(
    OID.keyBagShrouded,
    derSequence(shroudedKey.algorithm, derOctetString(shroudedKey.ciphertext)), // EncryptedPrivateKeyInfo
    holderAttributes,
  );
  const authenticatedSafe = derSequence(
    await encryptedDataContentInfo(encryption, password, certificates),
    dataContentInfo(derSequence(keyBag)),
  );
  return derSequence(
    derUnsignedInteger(3n), // version v3
    dataContentInfo(authenticatedSafe),
    pkcs12MacData(encryption, password, authenticatedSafe),
  );
}

/** ContentInfo of type data (RFC 5652 4): the octets in an OCTET STRING under [0] EXPLICIT. */
function dataContentInfo(content: Uint8Array): Uint8Array {
  return derSequence(
    derObjectIdentifier(OID.data),
    derElement(contextConstructed(0), derOctetString(content)),
  );
}

/** ContentInfo of type encryptedData (RFC 5652 8): EncryptedData v0 of an encrypted data content. */
async function encryptedDataContentInfo(
  encryption: Pkcs12Encryption,
  password: string,
  content: Uint8Array,
): Promise<Uint8Array> {
  const { algorithm, ciphertext } = await pkcs12Encrypt(encryption, password, content);
  const encryptedContentInfo = derSequence(
    derObjectIdentifier(OID.data),
    algorithm,
    derElement(contextPrimitive(0), ciphertext), // encryptedContent [0] IMPLICIT OCTET STRING
  );
  return derSequence(
    derObjectIdentifier(OID.encryptedData),
    derElement(contextConstructed(0), derSequence(derUnsignedInteger(0n), encryptedContentInfo)),
  );
}

/** SafeBag (RFC 7292 4.2): bagId, bagValue under [0] EXPLICIT, the attributes SET when given. */
function safeBag(bagId: string, value: Uint8Array, attributes?: Uint8Array): Uint8Array {
  return derSequence(
    derObjectIdentifier(bagId),
    derElement(contextConstructed(0), value),
    ...(attributes ? [attributes] : []),
  );
}

/** CertBag (RFC 7292 4.2.3) holding an X.509 certificate as an OCTET STRING. */
function certBag(der: Uint8Array, attributes?: Uint8Array): Uint8Array {
  const value = derSequence(
    derObjectIdentifier(OID.x509Certificate),
    derElement(contextConstructed(0), derOctetString(der)),
  );
  return safeBag(OID.certBag, value, attributes);
}

/** Attribute (RFC 5652 5.3) with one value. */
function attribute(type: string, value: Uint8Array): Uint8Array {
  return derSequence(derObjectIdentifier(type), derSetOf([value]));
}

/** SET OF (X.690 11.6: in DER the encodings are sorted). */
function derSetOf(elements: Uint8Array[]): Uint8Array {
  const sorted = [...elements].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return derElement(TAG.set, ...sorted);
}

/** BMPString (X.680 41): UTF-16 big-endian, which the friendlyName attribute requires. */
function bmpString(text: string): Uint8Array {
  return derElement(0x1e, Buffer.from(text, 'utf16le').swap16());
}

function assertDer<T>(der: Uint8Array, Type: new (p: { schema: asn1js.AsnType }) => T, what: string): void {
  const asn1 = asn1js.fromBER(Buffer.from(der.buffer, der.byteOffset, der.byteLength));
  if (asn1.offset === -1) throw new PkiFormatError(`The ${what} is not valid DER`);
  try {
    new Type({ schema: asn1.result });
  } catch {
    throw new PkiFormatError(`The ${what} does not have the expected structure`);
  }
}
