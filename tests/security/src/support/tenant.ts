import { randomUUID } from 'node:crypto';
import { OcspCertStatus, buildCertId, parseCrl, parseOcspResponse, pemToDer } from '@ca/pki';
import { ServiceProcesses } from './service-processes';

export interface Answer {
  status: number;
  body: string;
}

/** One tenant with a CA, driven over the admin API, checked on the public surface. */
export class Tenant {
  private constructor(
    private readonly system: ServiceProcesses,
    readonly tenantId: string,
    private readonly bearer: string,
    readonly caDer: Uint8Array,
  ) {}

  static async create(system: ServiceProcesses, tenantId: string = randomUUID()): Promise<Tenant> {
    const bearer = await system.token(tenantId);
    const tenant = new Tenant(system, tenantId, bearer, new Uint8Array());
    const answer = await tenant.admin('POST', '/v1/ca/initialize', {
      commonName: 'Security Suite Root',
      organization: 'Acme',
      country: 'US',
      validityYears: 5,
    });
    if (answer.status !== 200) throw new Error(`CA initialization: ${answer.status} ${answer.body}`);
    const { certificatePem } = JSON.parse(answer.body) as { certificatePem: string };
    return new Tenant(system, tenantId, bearer, pemToDer(certificatePem));
  }

  async admin(method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${this.system.gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: await response.text() };
  }

  /** The serial numbers (hex) on the tenant's served CRL, or undefined before the first one. */
  async crlSerials(): Promise<string[] | undefined> {
    const response = await fetch(`${this.system.pkiUrl}/v1/tenants/${this.tenantId}/crl`);
    if (response.status !== 200) return undefined;
    const crl = parseCrl(new Uint8Array(await response.arrayBuffer()));
    return crl.entries.map((entry) => entry.serialNumberHex);
  }

  /** The OCSP certStatus of one serial (POST, RFC 6960 4.1.1 with one CertID, no nonce). */
  async ocspStatus(serialNumberHex: string): Promise<OcspCertStatus['kind'] | string> {
    const certId = buildCertId({ issuerCertificateDer: this.caDer, serialNumberHex, hashAlgorithm: 'sha1' });
    const response = await fetch(`${this.system.pkiUrl}/v1/tenants/${this.tenantId}/ocsp`, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: derSequence(derSequence(derSequence(derSequence(certId.der)))),
    });
    if (response.status !== 200) return `HTTP ${response.status}`;
    const parsed = parseOcspResponse(new Uint8Array(await response.arrayBuffer()));
    if (parsed.responseStatus !== 'successful') return parsed.responseStatus;
    return parsed.responses.find((r) => r.serialNumberHex === serialNumberHex)?.status.kind ?? 'missing';
  }
}

/** DER length octets (X.690 8.1.3) and a SEQUENCE around `content`. */
function derSequence(content: Uint8Array): Buffer {
  const octets: number[] = [];
  for (let n = content.length; n > 0; n >>= 8) octets.unshift(n & 0xff);
  const header = content.length < 0x80 ? [content.length] : [0x80 | octets.length, ...octets];
  return Buffer.concat([Buffer.of(0x30, ...header), content]);
}
