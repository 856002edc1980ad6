import { CertificateFields, Der, readDer, timeOf } from './x509';

/**
 * Asks the certificate's own OCSP responder (its AIA address: the public distribution surface)
 * for its status, with an RFC 6960 request sent by GET (RFC 5019), as a relying party would. The
 * answer is read for display; its signature is not checked here (a relying party checks it).
 */
export interface OcspAnswer {
  status: 'good' | 'revoked' | 'unknown' | string;
  revokedAt?: Date;
  reason?: string;
  producedAt?: Date;
}

const RESPONSE_STATUS = [
  'successful',
  'malformedRequest',
  'internalError',
  'tryLater',
  '',
  'sigRequired',
  'unauthorized',
];
const CRL_REASONS = [
  'unspecified',
  'keyCompromise',
  'cACompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  '',
  'removeFromCRL',
  'privilegeWithdrawn',
  'aACompromise',
];

function tlv(tag: number, ...contents: Uint8Array[]): Uint8Array {
  const length = contents.reduce((n, c) => n + c.length, 0);
  const header =
    length < 0x80
      ? [tag, length]
      : length < 0x100
        ? [tag, 0x81, length]
        : [tag, 0x82, length >> 8, length & 0xff];
  const out = new Uint8Array(header.length + length);
  out.set(header);
  let at = header.length;
  for (const c of contents) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function sha1(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-1', bytes.slice()));
}

function serialBytes(hexSerial: string): Uint8Array {
  const even = hexSerial.length % 2 ? `0${hexSerial}` : hexSerial;
  const bytes = Uint8Array.from(even.match(/../g) ?? [], (h) => parseInt(h, 16));
  return bytes[0] & 0x80 ? Uint8Array.from([0, ...bytes]) : bytes;
}

/** The DER OCSPRequest with one CertID (SHA-1, as RFC 5019 profiles it). */
export async function ocspRequest(
  certificate: CertificateFields,
  issuer: CertificateFields,
): Promise<Uint8Array> {
  const sha1Algorithm = tlv(
    0x30,
    Uint8Array.from([0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a]),
    Uint8Array.from([0x05, 0x00]),
  );
  const certId = tlv(
    0x30,
    sha1Algorithm,
    tlv(0x04, await sha1(certificate.issuerNameDer)),
    tlv(0x04, await sha1(issuer.publicKeyBits)),
    tlv(0x02, serialBytes(certificate.serialNumber)),
  );
  return tlv(0x30, tlv(0x30, tlv(0x30, tlv(0x30, certId))));
}

export function readOcspResponse(der: Uint8Array): OcspAnswer {
  const response = readDer(der);
  const status = response.children[0].value[0];
  if (status !== 0) return { status: RESPONSE_STATUS[status] ?? `error ${status}` };
  const basic = readDer(response.children[1].children[0].children[1].value);
  const data = basic.children[0];
  const rest = data.children.filter((c) => c.tag !== 0xa0);
  const producedAt = timeOf(rest[1]);
  const single = rest[2].children[0];
  const certStatus: Der = single.children[1];
  if (certStatus.tag === 0x80) return { status: 'good', producedAt };
  if (certStatus.tag === 0xa1) {
    const reason = certStatus.children.find((c) => c.tag === 0xa0);
    return {
      status: 'revoked',
      revokedAt: timeOf(certStatus.children[0]),
      reason: reason ? CRL_REASONS[reason.children[0].value[0]] : undefined,
      producedAt,
    };
  }
  return { status: 'unknown', producedAt };
}

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export async function ocspStatus(
  certificate: CertificateFields,
  issuer: CertificateFields,
): Promise<OcspAnswer> {
  const url = certificate.ocspUrls[0];
  const request = await ocspRequest(certificate, issuer);
  const response = await fetch(`${url}/${base64Url(request)}`, { credentials: 'omit', cache: 'no-store' });
  if (!response.ok) throw new Error(`The OCSP responder answered ${response.status}.`);
  return readOcspResponse(new Uint8Array(await response.arrayBuffer()));
}
