import * as asn1js from 'asn1js';
import { derSequence, derElement } from './der-writer';
import { PkiFormatError } from './pki-format.error';

/** docs/api.md#certificate-profile: custom extensions are numbered under this private arc, `.1`, `.2`, … */
export const CUSTOM_EXTENSION_ARC = '1.3.6.1.4.1.99999.2';

const UTF8_STRING = 0x0c;

/**
 * The extnValue of a custom extension: `SEQUENCE { key UTF8String, value UTF8String }`, so that both
 * the caller's key and its value can be read back from the certificate (`openssl asn1parse`).
 */
export function encodeKeyValueExtension(key: string, value: string): Uint8Array {
  return derSequence(
    derElement(UTF8_STRING, Buffer.from(key, 'utf8')),
    derElement(UTF8_STRING, Buffer.from(value, 'utf8')),
  );
}

export function decodeKeyValueExtension(der: Uint8Array): { key: string; value: string } {
  const asn1 = asn1js.fromBER(der);
  const sequence = asn1.result;
  if (asn1.offset !== der.byteLength || !(sequence instanceof asn1js.Sequence)) {
    throw new PkiFormatError('A custom extension value must be SEQUENCE { UTF8String, UTF8String }');
  }
  const [key, value] = sequence.valueBlock.value;
  if (
    !(key instanceof asn1js.Utf8String) ||
    !(value instanceof asn1js.Utf8String) ||
    sequence.valueBlock.value.length !== 2
  ) {
    throw new PkiFormatError('A custom extension value must be SEQUENCE { UTF8String, UTF8String }');
  }
  return { key: key.valueBlock.value, value: value.valueBlock.value };
}
