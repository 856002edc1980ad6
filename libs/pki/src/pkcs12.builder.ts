import { createHash } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import { PkiFormatError } from './pki-format.error';

/** What goes into the bundle: the holder's key and certificate, and the CA that issued it. */
export interface Pkcs12Contents {
  /** DER PKCS#8 PrivateKeyInfo (RFC 5208 section 5). */
  privateKeyPkcs8: Uint8Array;
  certificateDer: Uint8Array;
  /** Issuer chain, closest first (here: the tenant's root). */
  caCertificatesDer: Uint8Array[];
  /** friendlyName of the key and its certificate (RFC 2985 5.5.1); shown by `openssl pkcs12`. */
  friendlyName?: string;
}

// RFC 7292 appendix D: bag types; RFC 2985 5.5.1/5.5.2: bag attributes.
const KEY_BAG_SHROUDED = '1.2.840.113549.1.12.10.1.2';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';
const X509_CERTIFICATE = '1.2.840.113549.1.9.22.1';
const FRIENDLY_NAME = '1.2.840.113549.1.9.20';
const LOCAL_KEY_ID = '1.2.840.113549.1.9.21';

/**
 * The password carries at least 128 random bits, so key stretching adds nothing against guessing;
 * 2048 is OpenSSL's own default for both the PBKDF2 and the MAC iteration counts.
 */
const ITERATIONS = 2048;

/**
 * A PKCS#12 (RFC 7292) that OpenSSL 3, Node's `tls` and the usual key stores open: the key in a
 * shrouded key bag and the certificates in an encrypted SafeContents, both PBES2 (RFC 8018 6.2)
 * with PBKDF2/HMAC-SHA256 and AES-256-CBC, and a MAC with HMAC-SHA256 (RFC 7292 5.1, appendix B
 * key derivation). The key and its certificate share a localKeyID, as OpenSSL writes them.
 */
export async function buildPkcs12(contents: Pkcs12Contents, password: string): Promise<Uint8Array> {
  if (password.length === 0) throw new RangeError('A PKCS#12 password must not be empty');
  const crypto = pkiCrypto();
  const certificate = parse(contents.certificateDer, pkijs.Certificate, 'certificate');
  const privateKeyInfo = parse(contents.privateKeyPkcs8, pkijs.PrivateKeyInfo, 'PKCS#8 private key');
  const localKeyId = createHash('sha1').update(contents.certificateDer).digest();
  const holderAttributes = [
    attribute(LOCAL_KEY_ID, new asn1js.OctetString({ valueHex: toArrayBuffer(localKeyId) })),
    ...(contents.friendlyName
      ? [attribute(FRIENDLY_NAME, new asn1js.BmpString({ value: contents.friendlyName }))]
      : []),
  ];

  const keyBag = new pkijs.PKCS8ShroudedKeyBag({ parsedValue: privateKeyInfo });
  const certBags = [
    certBag(certificate, holderAttributes),
    ...contents.caCertificatesDer.map((der) => certBag(parse(der, pkijs.Certificate, 'CA certificate'))),
  ];
  const pfx = new pkijs.PFX({
    parsedValue: {
      integrityMode: 0, // password integrity: the MAC of RFC 7292 5.1
      authenticatedSafe: new pkijs.AuthenticatedSafe({
        parsedValue: {
          safeContents: [
            {
              privacyMode: 0, // the key bag is encrypted itself
              value: new pkijs.SafeContents({
                safeBags: [
                  new pkijs.SafeBag({
                    bagId: KEY_BAG_SHROUDED,
                    bagValue: keyBag,
                    bagAttributes: holderAttributes,
                  }),
                ],
              }),
            },
            { privacyMode: 1, value: new pkijs.SafeContents({ safeBags: certBags }) },
          ],
        },
      }),
    },
  });

  // The password as UTF-8 octets: PBES2 uses them as given (as OpenSSL does); pkijs 4 turns them
  // into the BMPString with a final NUL that the MAC key derivation of RFC 7292 appendix B wants.
  const passwordOctets = toArrayBuffer(Buffer.from(password, 'utf8'));
  const pbes2 = {
    password: passwordOctets,
    contentEncryptionAlgorithm: { name: 'AES-CBC', length: 256 } as pkijs.ContentEncryptionAlgorithm,
    hmacHashAlgorithm: 'SHA-256',
    iterationCount: ITERATIONS,
  };
  await keyBag.makeInternalValues(pbes2, crypto);
  await pfx.parsedValue!.authenticatedSafe!.makeInternalValues({ safeContents: [{}, pbes2] }, crypto);
  await pfx.makeInternalValues(
    {
      password: passwordOctets,
      iterations: ITERATIONS,
      pbkdf2HashAlgorithm: { name: 'SHA-256' },
      hmacHashAlgorithm: 'SHA-256',
    },
    crypto,
  );
  return new Uint8Array(pfx.toSchema().toBER(false));
}

function certBag(certificate: pkijs.Certificate, bagAttributes?: pkijs.Attribute[]): pkijs.SafeBag {
  return new pkijs.SafeBag({
    bagId: CERT_BAG,
    bagValue: new pkijs.CertBag({ certId: X509_CERTIFICATE, parsedValue: certificate }),
    ...(bagAttributes ? { bagAttributes } : {}),
  });
}

function attribute(type: string, value: asn1js.BaseBlock): pkijs.Attribute {
  return new pkijs.Attribute({ type, values: [value] });
}

function parse<T>(der: Uint8Array, Type: new (p: { schema: asn1js.AsnType }) => T, what: string): T {
  const asn1 = asn1js.fromBER(toArrayBuffer(der));
  if (asn1.offset === -1) throw new PkiFormatError(`The ${what} is not valid DER`);
  try {
    return new Type({ schema: asn1.result });
  } catch {
    throw new PkiFormatError(`The ${what} does not have the expected structure`);
  }
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
