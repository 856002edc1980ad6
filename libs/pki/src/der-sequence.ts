import { derSequence } from './der-writer';

/**
 * A DER SEQUENCE (X.690 8.9, tag 0x30) around elements that are already DER-encoded, copied as
 * they are. Used for the outer Certificate SEQUENCE, so that the TBSCertificate is exactly the
 * octets that were signed, without decoding them again.
 */
export function encodeDerSequence(elements: readonly Uint8Array[]): Uint8Array {
  return derSequence(...elements);
}
