import { createHash, X509Certificate } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import * as pkijs from 'pkijs';
import { dnsNameProblem, isNameAllowedByPolicy } from '@ca/domain';
import { AcmeProblem } from '../protocol/acme-problem';
import { TxtLookup, checkDns01 } from './dns01-validator';
import { TargetRefused, TargetResolver } from './target-resolver';

/**
 * Limits on every validation (docs/security.md, ACME validation): one total deadline from the
 * first lookup to the last byte, however slowly the target answers.
 */
export const VALIDATION_TIMEOUT_MS = 10_000;
export const MAX_HTTP01_BODY_BYTES = 8 * 1024;
export const MAX_REDIRECTS = 10;

/** RFC 8737 3: id-pe-acmeIdentifier. */
const ACME_IDENTIFIER_OID = '1.3.6.1.5.5.7.1.31';

export interface ChallengeTarget {
  /** The DNS name being validated (a wildcard authorization's, without `*.`). */
  name: string;
  token: string;
  keyAuthorization: string;
  /** The tenant's allowed DNS suffixes (null: any name); an http-01 redirect must stay inside them. */
  allowedDnsSuffixes: readonly string[] | null;
}

export interface ValidatorPorts {
  http01Port: number;
  tlsAlpn01Port: number;
}

/** Checks one challenge; throws an AcmeProblem saying why it failed. */
export class ChallengeValidators {
  constructor(
    private readonly resolver: TargetResolver,
    private readonly ports: ValidatorPorts,
    private readonly txtLookup: TxtLookup,
    /** The total time one validation may take (tests shorten it). */
    private readonly deadlineMs = VALIDATION_TIMEOUT_MS,
  ) {}

  /**
   * Checks one challenge within the deadline: when it passes, the validation fails with
   * `connection` and its sockets are closed, whatever stage it was at.
   */
  async validate(type: string, target: ChallengeTarget): Promise<void> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const problem = connection(`the validation did not finish within ${this.deadlineMs / 1000} s`);
        abort.abort(problem);
        reject(problem);
      }, this.deadlineMs);
    });
    try {
      return await Promise.race([this.check(type, target, abort.signal), deadline]);
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }

  private check(type: string, target: ChallengeTarget, signal: AbortSignal): Promise<void> {
    if (type === 'http-01') return this.http01(target, signal);
    if (type === 'tls-alpn-01') return this.tlsAlpn01(target, signal);
    // dns-01 asks the resolver only: it connects to no address of the requester's choosing.
    if (type === 'dns-01') return checkDns01(this.txtLookup, target);
    return Promise.reject(new AcmeProblem('malformed', `unsupported challenge type ${type}`));
  }

  /**
   * RFC 8555 8.3: GET the token over HTTP. A redirect is followed (at most MAX_REDIRECTS) only to
   * http or https on the http-01 or tls-alpn-01 port, and only to a DNS name the tenant's policy
   * allows (RFC 8555 10.2: the validator must not become the requester's tool to reach elsewhere).
   */
  private async http01(target: ChallengeTarget, signal: AbortSignal): Promise<void> {
    let url = new URL(
      `http://${target.name}:${this.ports.http01Port}/.well-known/acme-challenge/${target.token}`,
    );
    for (let redirects = 0; ; redirects++) {
      const answer = await this.fetchOnce(url, signal);
      if (answer.location !== undefined && answer.status >= 300 && answer.status < 400) {
        if (redirects >= MAX_REDIRECTS) throw connection(`more than ${MAX_REDIRECTS} redirects`);
        url = this.redirectTarget(new URL(answer.location, url), target);
        continue;
      }
      if (answer.status !== 200) {
        throw new AcmeProblem('unauthorized', `${url.href} answered ${answer.status}`, 403);
      }
      // RFC 8555 8.3: trailing whitespace is tolerated.
      if (answer.body.replace(/\s+$/, '') !== target.keyAuthorization) {
        throw new AcmeProblem('incorrectResponse', `${url.href} did not answer the key authorization`, 403);
      }
      return;
    }
  }

  /** Where a redirect may lead, or a `connection` problem saying why it is not followed. */
  private redirectTarget(next: URL, target: ChallengeTarget): URL {
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw connection(`redirect to ${next.protocol} is not followed`);
    }
    const port = next.port ? Number(next.port) : next.protocol === 'https:' ? 443 : 80;
    if (port !== this.ports.http01Port && port !== this.ports.tlsAlpn01Port) {
      throw connection(
        `redirect to port ${port} is not followed (only ${this.ports.http01Port} and ${this.ports.tlsAlpn01Port})`,
      );
    }
    const host = next.hostname.toLowerCase();
    if (dnsNameProblem(host) || host.startsWith('*.')) {
      throw connection(`redirect to ${next.hostname} is not followed: only DNS names are`);
    }
    if (!isNameAllowedByPolicy(host, target.allowedDnsSuffixes)) {
      throw connection(`redirect to ${host} is not followed: it is outside this tenant's issuance policy`);
    }
    return next;
  }

  /** One request to the resolved address (Host and SNI keep the name), size-limited. */
  private async fetchOnce(
    url: URL,
    signal: AbortSignal,
  ): Promise<{ status: number; location?: string; body: string }> {
    // Every hop goes through the resolver, so a redirect cannot lead to a refused address.
    const address = await this.resolveOrFail(url.hostname);
    const secure = url.protocol === 'https:';
    const port = url.port ? Number(url.port) : secure ? 443 : 80;
    return new Promise((resolve, reject) => {
      const options = {
        host: address,
        port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, 'user-agent': 'ca-manager-acme-validator' },
        signal,
        ...(secure ? { servername: url.hostname, rejectUnauthorized: false } : {}),
      };
      const req = (secure ? httpsRequest : httpRequest)(options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_HTTP01_BODY_BYTES) {
            req.destroy();
            reject(connection(`${url.href} answered more than ${MAX_HTTP01_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: typeof res.headers.location === 'string' ? res.headers.location : undefined,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (err) => reject(connection(`${url.href}: ${err.message}`)));
      });
      req.on('error', (err) => reject(connection(`${url.href}: ${err.message}`)));
      req.end();
    });
  }

  /**
   * RFC 8737 3: a TLS handshake with ALPN acme-tls/1 and the name as SNI must present a certificate
   * whose only SAN is that name and whose critical acmeIdentifier holds SHA-256 of the key authorization.
   */
  private async tlsAlpn01(target: ChallengeTarget, signal: AbortSignal): Promise<void> {
    const address = await this.resolveOrFail(target.name);
    signal.throwIfAborted();
    const der = await new Promise<Buffer>((resolve, reject) => {
      const socket = tlsConnect({
        host: address,
        port: this.ports.tlsAlpn01Port,
        servername: target.name,
        ALPNProtocols: ['acme-tls/1'],
        rejectUnauthorized: false,
      });
      signal.addEventListener('abort', () => socket.destroy(), { once: true });
      socket.once('secureConnect', () => {
        const protocol = socket.alpnProtocol;
        const certificate = socket.getPeerCertificate();
        socket.destroy();
        if (protocol !== 'acme-tls/1') {
          reject(new AcmeProblem('tls', 'the server did not negotiate acme-tls/1', 403));
        } else if (!certificate?.raw) {
          reject(new AcmeProblem('tls', 'the server presented no certificate', 403));
        } else resolve(certificate.raw);
      });
      socket.once('error', (err) => reject(new AcmeProblem('tls', `${target.name}: ${err.message}`, 400)));
    });
    checkAcmeTlsCertificate(der, target);
  }

  private async resolveOrFail(name: string): Promise<string> {
    try {
      return await this.resolver.resolve(name);
    } catch (error) {
      if (error instanceof TargetRefused) throw new AcmeProblem('rejectedIdentifier', error.message);
      throw connection(`${name} could not be resolved`);
    }
  }
}

/** The RFC 8737 3 checks on the certificate a tls-alpn-01 responder presented. */
export function checkAcmeTlsCertificate(der: Buffer, target: ChallengeTarget): void {
  const x509 = new X509Certificate(der);
  const sans = (x509.subjectAltName ?? '').split(', ').filter((s) => s !== '');
  if (sans.length !== 1 || sans[0].toLowerCase() !== `dns:${target.name.toLowerCase()}`) {
    throw new AcmeProblem('incorrectResponse', `the certificate must name exactly ${target.name}`, 403);
  }
  const certificate = pkijs.Certificate.fromBER(der);
  const extension = certificate.extensions?.find((e) => e.extnID === ACME_IDENTIFIER_OID);
  if (!extension?.critical) {
    throw new AcmeProblem(
      'incorrectResponse',
      'the certificate has no critical acmeIdentifier extension',
      403,
    );
  }
  const expected = Buffer.concat([
    Buffer.from([0x04, 0x20]),
    createHash('sha256').update(target.keyAuthorization).digest(),
  ]);
  if (!Buffer.from(extension.extnValue.valueBlock.valueHexView).equals(expected)) {
    throw new AcmeProblem(
      'incorrectResponse',
      'the acmeIdentifier does not match the key authorization',
      403,
    );
  }
}

const connection = (detail: string) => new AcmeProblem('connection', detail, 400);
