/**
 * A DER SEQUENCE (X.690 8.9, tag 0x30) around elements that are already DER-encoded, copied as
 * they are. Used for the outer Certificate SEQUENCE, so that the TBSCertificate is exactly the
 * octets that were signed, without decoding them again.
 */
export function encodeDerSequence(elements: readonly Uint8Array[]): Uint8Array {
  const contentLength = elements.reduce((total, element) => total + element.byteLength, 0);
  const header = [0x30, ...encodeLength(contentLength)];
  const der = new Uint8Array(header.length + contentLength);
  der.set(header);
  let offset = header.length;
  for (const element of elements) {
    der.set(element, offset);
    offset += element.byteLength;
  }
  return der;
}

/** X.690 8.1.3 / 10.1: the short form below 128, else the long form in as few octets as possible. */
function encodeLength(length: number): number[] {
  if (length < 0x80) return [length];
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return [0x80 | octets.length, ...octets];
}
