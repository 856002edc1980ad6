import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CrlInfo,
  OcspCertStatus,
  buildCertId,
  parseCertificate,
  parseCrl,
  parseOcspResponse,
  pemToDer,
} from '@ca/pki';
import { eventually, http } from './http';

/** Files for the openssl CLI in a directory of their own, made on the first write. */
export class TempFiles {
  private dir?: string;

  write(name: string, content: string | Uint8Array): string {
    this.dir ??= mkdtempSync(join(tmpdir(), 'ca-openssl-'));
    const file = join(this.dir, name);
    writeFileSync(file, content);
    return file;
  }

  remove(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

export const certificateInfo = (pem: string) => parseCertificate(pemToDer(pem));

/** DER length octets (X.690 8.1.3). */
function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.of(length);
  const octets: number[] = [];
  for (let n = length; n > 0; n >>= 8) octets.unshift(n & 0xff);
  return Buffer.from([0x80 | octets.length, ...octets]);
}

const derSequence = (content: Uint8Array) =>
  Buffer.concat([Buffer.of(0x30), derLength(content.length), content]);

/**
 * An OCSPRequest (RFC 6960 4.1.1) for one serial of the CA, without a nonce:
 * OCSPRequest { tbsRequest { requestList { Request { reqCert CertID } } } }.
 */
export function ocspRequestDer(caDer: Uint8Array, serialNumberHex: string): Buffer {
  const certId = buildCertId({ issuerCertificateDer: caDer, serialNumberHex, hashAlgorithm: 'sha1' });
  return derSequence(derSequence(derSequence(derSequence(certId.der))));
}

/** The certStatus the tenant's responder gives for a serial, by POST or by the GET form. */
export async function ocspStatus(
  pkiUrl: string,
  tenantId: string,
  caDer: Uint8Array,
  serialNumberHex: string,
  form: 'post' | 'get' = 'post',
): Promise<OcspCertStatus> {
  const request = ocspRequestDer(caDer, serialNumberHex);
  const base = `${pkiUrl}/v1/tenants/${tenantId}/ocsp`;
  const answer =
    form === 'post'
      ? await http(base, {
          method: 'POST',
          headers: { 'content-type': 'application/ocsp-request' },
          body: request,
        })
      : await http(`${base}/${request.toString('base64url')}`);
  if (answer.status !== 200) throw new Error(`OCSP answered ${answer.status}`);
  const response = parseOcspResponse(new Uint8Array(answer.body));
  if (response.responseStatus !== 'successful') throw new Error(`OCSP status ${response.responseStatus}`);
  const single = response.responses.find((r) => r.serialNumberHex === serialNumberHex);
  if (!single) throw new Error('no SingleResponse for the serial');
  return single.status;
}

/** Polls the OCSP responder (≤ 5 s) until the serial is revoked; returns that status. */
export function eventuallyRevokedInOcsp(
  pkiUrl: string,
  tenantId: string,
  caDer: Uint8Array,
  serialNumberHex: string,
  form: 'post' | 'get' = 'post',
) {
  return eventually(
    async () => {
      const status = await ocspStatus(pkiUrl, tenantId, caDer, serialNumberHex, form);
      return status.kind === 'revoked' ? status : undefined;
    },
    5_000,
    `OCSP (${form}) answering revoked for ${serialNumberHex}`,
  );
}

/** The served CRL (`crl`, the root's `root.crl` or a CA's own; DER and as read), polled (≤ 5 s) until `accept` holds. */
export function eventuallyCrl(
  pkiUrl: string,
  tenantId: string,
  accept: (crl: CrlInfo) => boolean,
  what = 'CRL condition',
  /** `crl`, `root.crl`, or one CA's own `ca/{caId}/crl` (docs/api.md#add-an-issuing-ca). */
  file: 'crl' | 'root.crl' | `ca/${string}/crl` = 'crl',
): Promise<{ der: Buffer; crl: CrlInfo; contentType: string | null }> {
  return eventually(
    async () => {
      const answer = await http(`${pkiUrl}/v1/tenants/${tenantId}/${file}`);
      if (answer.status !== 200) return undefined;
      const crl = parseCrl(new Uint8Array(answer.body));
      return accept(crl)
        ? { der: answer.body, crl, contentType: answer.headers.get('content-type') }
        : undefined;
    },
    5_000,
    what,
  );
}

/**
 * Runs `openssl` without blocking the event loop: needed whenever openssl talks to the system under
 * test, which serves from this very process (`spawnOpenssl` would deadlock). Killed after `timeoutMs`.
 */
export function opensslAsync(
  args: readonly string[],
  timeoutMs = 10_000,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
