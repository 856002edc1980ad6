import { randomUUID } from 'node:crypto';
import { CrlInfo, OcspCertStatus, buildCertId, parseCrl, parseOcspResponse, pemToDer } from '@ca/pki';
import { mapPool } from '@ca/test-support';
import { sleep } from './child-process';
import { DistributedSystem } from './distributed-system';

export const PROBLEM_JSON = /^application\/problem\+json(;|$)/;

/** One HTTP answer as the suites read it. */
export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

export interface Issued {
  certificateId: string;
  serialNumber: string;
}

/** A failed answer worth reporting: what a client saw. */
export interface FailedAnswer {
  status: number;
  contentType: string;
  code?: string;
}

/** A network error (the port is closed) reads as status 0. */
export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await response.text(),
    };
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 0, contentType: '', body: code ? `${String(error)} (${code})` : String(error) };
  }
}

/**
 * What the suites accept as a clear failure while a dependency is down: 502, 503 or 504 with a
 * Problem Details body (docs/api.md#errors) whose status matches. A 500 ("an unexpected error") is not clear:
 * it tells the client neither that the fault is temporary nor that a retry may succeed.
 */
export function isClearServerError(answer: Answer): boolean {
  if (![502, 503, 504].includes(answer.status) || !PROBLEM_JSON.test(answer.contentType)) return false;
  try {
    const problem = JSON.parse(answer.body) as { status?: number; code?: string; title?: string };
    return (
      problem.status === answer.status &&
      typeof problem.code === 'string' &&
      typeof problem.title === 'string'
    );
  } catch {
    return false;
  }
}

export function describeFailure(answer: Answer): FailedAnswer {
  let code: string | undefined;
  try {
    code = (JSON.parse(answer.body) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  return { status: answer.status, contentType: answer.contentType, code };
}

/** One tenant with a CA, driven over the admin API of a distributed system, checked on its public surface. */
export class FaultTenant {
  /** Round-robin over the gateways, as a load balancer in front of replicas. */
  private nextGateway = 0;

  private constructor(
    private readonly system: DistributedSystem,
    readonly tenantId: string,
    private readonly bearer: string,
    readonly caDer: Uint8Array,
  ) {}

  static async create(system: DistributedSystem): Promise<FaultTenant> {
    const tenantId = randomUUID();
    const bearer = await system.token(tenantId);
    const answer = await request(`${system.gatewayUrl}/v1/ca/initialize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        commonName: 'Fault Suite Root',
        organization: 'Acme',
        country: 'US',
        validityYears: 5,
      }),
    });
    if (answer.status !== 200) throw new Error(`CA initialization: ${answer.status} ${answer.body}`);
    const { certificatePem } = JSON.parse(answer.body) as { certificatePem: string };
    return new FaultTenant(system, tenantId, bearer, pemToDer(certificatePem));
  }

  /**
   * One admin call, through the gateways in turn. A gateway that refuses the connection (it is
   * down) is passed over for the next, as a load balancer's health check would; a request that
   * reached a gateway is never sent twice here.
   */
  async admin(method: string, path: string, body?: unknown): Promise<Answer> {
    const gateways = this.system.gatewayUrls;
    let answer: Answer | undefined;
    for (let tried = 0; tried < gateways.length; tried++) {
      const gateway = gateways[this.nextGateway++ % gateways.length];
      answer = await request(`${gateway}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!(answer.status === 0 && answer.body.includes('ECONNREFUSED'))) return answer;
    }
    return answer!;
  }

  issueOnce(index: number): Promise<Answer> {
    return this.admin('POST', '/v1/certificates', {
      clientId: `client-${index}`,
      commonName: `fault-client-${index}`,
      organization: 'Acme',
      organizationalUnit: 'Faults',
      country: 'US',
      validityDays: 30,
    });
  }

  /** Issues `count` certificates, `concurrency` at a time, with no fault expected. */
  async issueMany(count: number, concurrency = 8): Promise<Issued[]> {
    return mapPool(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      async (i) => {
        const answer = await this.issueOnce(i);
        if (answer.status !== 200) throw new Error(`issuing ${i}: ${answer.status} ${answer.body}`);
        const { certificateId, serialNumber } = JSON.parse(answer.body) as Issued;
        return { certificateId, serialNumber };
      },
    );
  }

  revokeOnce(certificateId: string): Promise<Answer> {
    return this.admin('POST', `/v1/certificates/${certificateId}/revoke`, {
      reason: 'fault suite',
      reasonCode: 'KeyCompromise',
    });
  }

  /**
   * Revokes as a careful client does: a clear 5xx, or a connection lost to a gateway that died
   * with the request (status 0), is retried (after 250 ms) until the answer is 200, or 409 when an
   * earlier attempt went through although its answer was lost. Returns every failed answer seen;
   * anything that is neither of those nor a final answer throws.
   */
  async revokeWithRetry(certificateId: string, deadlineMs = 90_000): Promise<FailedAnswer[]> {
    const failures: FailedAnswer[] = [];
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0; ; attempt++) {
      const answer = await this.revokeOnce(certificateId);
      if (answer.status === 200) return failures;
      if (answer.status === 409 && attempt > 0) return failures;
      if (!isClearServerError(answer) && answer.status !== 0)
        throw new Error(`revoking ${certificateId}: ${answer.status} ${answer.contentType} ${answer.body}`);
      failures.push(describeFailure(answer));
      if (Date.now() > deadline)
        throw new Error(`revoking ${certificateId}: still failing after ${deadlineMs} ms`);
      await sleep(250);
    }
  }

  /** The CRL a responder serves (the first one unless `pkiUrl` names another replica). */
  async crl(pkiUrl = this.system.pkiUrl): Promise<CrlInfo | undefined> {
    const response = await fetch(`${pkiUrl}/v1/tenants/${this.tenantId}/crl`);
    if (response.status !== 200) return undefined;
    return parseCrl(new Uint8Array(await response.arrayBuffer()));
  }

  /** The OCSP certStatus of one serial (POST, RFC 6960 4.1.1 with one CertID, no nonce). */
  async ocspStatus(serialNumberHex: string, pkiUrl = this.system.pkiUrl): Promise<OcspCertStatus> {
    const certId = buildCertId({ issuerCertificateDer: this.caDer, serialNumberHex, hashAlgorithm: 'sha1' });
    const response = await fetch(`${pkiUrl}/v1/tenants/${this.tenantId}/ocsp`, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: derSequence(derSequence(derSequence(derSequence(certId.der)))),
    });
    if (response.status !== 200) throw new Error(`OCSP answered HTTP ${response.status}`);
    const parsed = parseOcspResponse(new Uint8Array(await response.arrayBuffer()));
    if (parsed.responseStatus !== 'successful')
      throw new Error(`OCSP responseStatus ${parsed.responseStatus}`);
    const single = parsed.responses.find((r) => r.serialNumberHex === serialNumberHex);
    if (!single) throw new Error(`no SingleResponse for ${serialNumberHex}`);
    return single.status;
  }

  /** The serials whose OCSP status is not `expected`, asked `concurrency` at a time. */
  async ocspMismatches(
    serials: readonly string[],
    expected: OcspCertStatus['kind'],
    concurrency = 8,
    pkiUrl = this.system.pkiUrl,
  ): Promise<string[]> {
    const kinds = await mapPool(serials, concurrency, (serial) =>
      this.ocspStatus(serial, pkiUrl).then(
        (s) => s.kind as string,
        (error: Error) => error.message,
      ),
    );
    return serials.filter((_, i) => kinds[i] !== expected);
  }
}

/** DER length octets (X.690 8.1.3) and a SEQUENCE around `content`. */
function derSequence(content: Uint8Array): Buffer {
  const length = content.length;
  const octets: number[] = [];
  for (let n = length; n > 0; n >>= 8) octets.unshift(n & 0xff);
  const header = length < 0x80 ? [length] : [0x80 | octets.length, ...octets];
  return Buffer.concat([Buffer.of(0x30, ...header), content]);
}
