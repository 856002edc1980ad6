import { decodeObjectIdentifier } from '../der-reader';

// Dotted OIDs already decoded, by their content octets in latin1: a CA writes the same few dozen.
const decoded = new Map<string, string>();
const MAX_DECODED = 1_024;

/**
 * The dotted form of OBJECT IDENTIFIER content octets, strictly decoded by `decodeObjectIdentifier`
 * once per distinct OID and then remembered, so linting a certificate does no BigInt arithmetic.
 */
export function oidText(contents: Uint8Array): string {
  let key = '';
  for (let i = 0; i < contents.length; i++) key += String.fromCharCode(contents[i]);
  let text = decoded.get(key);
  if (text === undefined) {
    text = decodeObjectIdentifier(contents);
    if (decoded.size >= MAX_DECODED) decoded.clear();
    decoded.set(key, text);
  }
  return text;
}
