import { pemToDer } from './pem';
import { PkiFormatError } from './pki-format.error';

const BLOCK = /-----BEGIN ([^-\r\n]*)-----[\s\S]*?-----END \1-----/g;

/**
 * The certificates of a PEM concatenation (RFC 7468 section 5.1 blocks, in order), as DER. Anything
 * that is not a CERTIFICATE block (a key, a CSR) or an unmatched boundary is refused, not skipped.
 */
export function pemCertificatesToDer(pem: string): Uint8Array[] {
  const blocks = [...pem.matchAll(BLOCK)];
  if (blocks.length === 0) throw new PkiFormatError('No PEM CERTIFICATE block found');
  const other = blocks.find((block) => block[1] !== 'CERTIFICATE');
  if (other) throw new PkiFormatError(`Expected only PEM certificates, got a PEM ${other[1]}`);
  const rest = blocks.reduce((text, block) => text.replace(block[0], ''), pem);
  if (rest.includes('-----BEGIN') || rest.includes('-----END')) {
    throw new PkiFormatError('A PEM block is not closed by its END line');
  }
  return blocks.map((block) => pemToDer(block[0], 'CERTIFICATE'));
}
