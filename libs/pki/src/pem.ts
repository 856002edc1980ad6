import { PkiFormatError } from './pki-format.error';

const LINE_LENGTH = 64;
// RFC 7468 section 3: printable ASCII characters except '-', joined by single '-' or spaces.
const LABEL = String.raw`[\x21-\x2C\x2E-\x7E](?:[\x21-\x2C\x2E-\x7E]|[- ](?=[\x21-\x2C\x2E-\x7E]))*`;
const BOUNDARY = new RegExp(String.raw`-----(BEGIN|END) (${LABEL})-----`, 'g');
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict RFC 7468 textual encoding: base64 in 64-character lines, LF line ends, final newline. */
export function derToPem(der: Uint8Array, label = 'CERTIFICATE'): string {
  if (!new RegExp(`^${LABEL}$`).test(label)) throw new RangeError(`Not a valid PEM label: "${label}"`);
  const base64 = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  const lines = base64.match(new RegExp(`.{1,${LINE_LENGTH}}`, 'g')) ?? [];
  return [`-----BEGIN ${label}-----`, ...lines, `-----END ${label}-----`, ''].join('\n');
}

/**
 * Decodes exactly one PEM block (RFC 7468 section 2: text around it is allowed and ignored,
 * whitespace inside the base64 too, CRLF as well as LF). With `expectedLabel`, the label must match.
 */
export function pemToDer(pem: string, expectedLabel?: string): Uint8Array {
  const boundaries = [...pem.matchAll(BOUNDARY)];
  if (boundaries.length === 0) throw new PkiFormatError('Not PEM: no "-----BEGIN …-----" line found');
  if (boundaries.length !== 2)
    throw new PkiFormatError('Expected exactly one PEM block (one BEGIN and one END)');
  const [begin, end] = boundaries;
  if (begin[1] !== 'BEGIN' || end[1] !== 'END') throw new PkiFormatError('PEM END line comes before BEGIN');
  if (begin[2] !== end[2]) {
    throw new PkiFormatError(`PEM labels differ: BEGIN ${begin[2]} but END ${end[2]}`);
  }
  if (expectedLabel !== undefined && begin[2] !== expectedLabel) {
    throw new PkiFormatError(`Expected a PEM ${expectedLabel}, got a PEM ${begin[2]}`);
  }
  const body = pem.slice(begin.index + begin[0].length, end.index).replace(/\s+/g, '');
  if (body.length === 0) throw new PkiFormatError(`PEM ${begin[2]} has no content`);
  if (!BASE64.test(body)) throw new PkiFormatError(`PEM ${begin[2]} content is not valid base64`);
  return new Uint8Array(Buffer.from(body, 'base64'));
}
