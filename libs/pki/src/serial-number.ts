import { randomBytes } from 'node:crypto';

import { toHex } from './hex';

const SERIAL_OCTETS = 16;
const MAX_SERIAL_OCTETS = 20;

/**
 * A fresh certificate serial number as the content octets of a DER INTEGER.
 *
 * RFC 5280 4.1.2.2: positive, unique per CA, at most 20 octets; the CA/Browser Forum asks for at
 * least 64 bits from a CSPRNG. Sixteen random octets with the high bit cleared (a set high bit would
 * make the INTEGER negative) and a non-zero first octet (a leading 0x00 would be a non-minimal
 * encoding, and openssl would print one octet fewer) leave 127 bits of entropy less a sliver.
 */
export function randomSerialNumber(): Uint8Array {
  const serial = new Uint8Array(randomBytes(SERIAL_OCTETS));
  serial[0] &= 0x7f;
  while (serial[0] === 0) serial[0] = randomBytes(1)[0] & 0x7f;
  return serial;
}

/**
 * The serial as `openssl x509 -serial -noout` prints it after `serial=`: uppercase hex of the
 * INTEGER's magnitude, two digits per octet, without the 0x00 sign octet DER puts in front of a
 * value whose high bit is set, and with a `-` in front of a negative value (which RFC 5280 forbids
 * but which exists in the wild).
 */
export function serialToHex(serial: Uint8Array): string {
  if (serial.length === 0) throw new RangeError('A serial number has at least one octet');
  if (serial[0] & 0x80) return `-${toHex(stripLeadingZeros(twosComplementMagnitude(serial)))}`;
  return toHex(stripLeadingZeros(serial));
}

/** The inverse of `serialToHex` for positive serials: DER INTEGER content octets. */
export function serialFromHex(hex: string): Uint8Array {
  if (!/^[0-9A-Fa-f]+$/.test(hex)) throw new RangeError(`Not a hexadecimal serial number: "${hex}"`);
  const magnitude = stripLeadingZeros(Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'));
  // X.690 8.3.2: a positive value whose first octet has the high bit set needs a 0x00 in front.
  const serial = magnitude[0] & 0x80 ? Uint8Array.of(0, ...magnitude) : new Uint8Array(magnitude);
  assertValidSerialNumber(serial);
  return serial;
}

/** RFC 5280 4.1.2.2 for serials this CA writes: a minimal DER INTEGER, positive, at most 20 octets. */
export function assertValidSerialNumber(serial: Uint8Array): void {
  if (serial.length === 0 || serial.length > MAX_SERIAL_OCTETS) {
    throw new RangeError(`A serial number has 1 to ${MAX_SERIAL_OCTETS} octets, not ${serial.length}`);
  }
  if (serial[0] & 0x80) throw new RangeError('A serial number must be positive');
  if (serial.length > 1 && serial[0] === 0 && !(serial[1] & 0x80)) {
    throw new RangeError('A serial number must be minimally encoded (no superfluous leading 0x00)');
  }
  if (serial.every((octet) => octet === 0)) throw new RangeError('A serial number must be positive, not 0');
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

function twosComplementMagnitude(negative: Uint8Array): Uint8Array {
  const magnitude = negative.map((octet) => ~octet & 0xff);
  for (let i = magnitude.length - 1; i >= 0; i--) {
    magnitude[i] = (magnitude[i] + 1) & 0xff;
    if (magnitude[i] !== 0) break;
  }
  return magnitude;
}
