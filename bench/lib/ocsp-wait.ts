// What the revocation benchmarks (inventory, revocation) share to watch the responder: an OCSP
// request for one serial, its answer's status, and a wait until it says what a step waits for.
import { buildCertId, parseOcspResponse } from '@ca/pki';
import { httpCall } from './http-load';

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.of(0x80 | bytes.length, ...bytes);
}

/** A DER TLV of `tag` around `contents` (definite length). */
export function derTlv(tag: number, contents: Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(tag), derLength(contents.length), contents]);
}

/**
 * OCSPRequest { TBSRequest { requestList { Request { reqCert } } } } (RFC 6960 4.1.1) for one
 * serial of the CA, SHA-1 CertID, no nonce.
 */
export function ocspRequestFor(issuerCertificateDer: Uint8Array, serialNumberHex: string): Buffer {
  const certId = buildCertId({ issuerCertificateDer, serialNumberHex, hashAlgorithm: 'sha1' }).der;
  const sequence = (contents: Uint8Array) => derTlv(0x30, contents);
  return sequence(sequence(sequence(sequence(certId))));
}

/** `good`, `revoked`, `unknown`, an unsuccessful responseStatus, or `unparseable`. */
function ocspStatusOf(body: Buffer): string {
  try {
    const info = parseOcspResponse(new Uint8Array(body));
    return info.responseStatus === 'successful' ? info.responses[0].status.kind : info.responseStatus;
  } catch {
    return 'unparseable';
  }
}

function postOcsp(url: string, request: Buffer) {
  return httpCall(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/ocsp-request' },
    body: request,
  });
}

export function sleep(msToWait: number): Promise<void> {
  return new Promise((r) => setTimeout(r, msToWait));
}

/**
 * Asks until the responder answers `wanted`, `pollMs` apart; past `deadline` (performance.now()
 * time) it throws `failure`.
 */
export async function untilOcspSays(
  url: string,
  request: Buffer,
  wanted: string,
  wait: { pollMs: number; deadline: number; failure: string },
): Promise<void> {
  while (ocspStatusOf((await postOcsp(url, request)).body) !== wanted) {
    if (performance.now() > wait.deadline) throw new Error(wait.failure);
    await sleep(wait.pollMs);
  }
}
