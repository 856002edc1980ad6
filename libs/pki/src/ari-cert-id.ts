import { assertValidSerialNumber, serialFromHex, serialToHex } from './serial-number';

/** What an ARI certID names (RFC 9773 4.1): the issuer's key identifier and the serial. */
export interface AriCertId {
  /** keyIdentifier of the certificate's AKI, uppercase hex. */
  authorityKeyIdentifierHex: string;
  /** The serial as `serialToHex` writes it (uppercase hex, no leading zero octets). */
  serialNumberHex: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * RFC 9773 4.1: base64url(AKI keyIdentifier) "." base64url(serial DER content octets), without
 * padding. Undefined for anything else (a certID that is not one names no certificate).
 */
export function parseAriCertId(certId: string): AriCertId | undefined {
  const parts = certId.split('.');
  if (parts.length !== 2 || !parts.every((p) => BASE64URL.test(p))) return undefined;
  const keyId = Buffer.from(parts[0], 'base64url');
  const serial = Buffer.from(parts[1], 'base64url');
  // Only canonical encodings: the text must be what encoding the octets gives back.
  if (keyId.toString('base64url') !== parts[0] || serial.toString('base64url') !== parts[1]) return undefined;
  if (keyId.length === 0) return undefined;
  try {
    // A serial this CA could not have written (negative, zero, not minimal, too long) names nothing.
    assertValidSerialNumber(serial);
  } catch {
    return undefined;
  }
  return {
    authorityKeyIdentifierHex: keyId.toString('hex').toUpperCase(),
    serialNumberHex: serialToHex(serial),
  };
}

/** The certID of a certificate (RFC 9773 4.1), from its AKI keyIdentifier and serial. */
export function ariCertId(id: AriCertId): string {
  const keyId = Buffer.from(id.authorityKeyIdentifierHex, 'hex').toString('base64url');
  return `${keyId}.${Buffer.from(serialFromHex(id.serialNumberHex)).toString('base64url')}`;
}
