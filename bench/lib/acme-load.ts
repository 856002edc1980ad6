/**
 * An ACME (RFC 8555) load client for benchmarks: one account per worker, each order carried from
 * new-order to the certificate's download, with the http-01 answers served by the loader itself
 * (Http01Responder) and, for a server that asks DNS for the name (step-ca), a loopback DNS server
 * that answers every A query with the responder's address (LoopbackDns).
 *
 * Every request can be timed, step by step, with the servers' CPU read around it (`StepRecorder`):
 * the order's timeline.
 */
import { createSocket, Socket } from 'node:dgram';
import { webcrypto } from 'node:crypto';
import {
  Agent as HttpAgent,
  createServer,
  IncomingHttpHeaders,
  request as httpRequest,
  Server,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { calculateJwkThumbprint, exportJWK, FlattenedSign, generateKeyPair, JWK } from 'jose';

/** The steps of one order, in the order they happen. */
export const ORDER_STEPS = [
  'new-nonce',
  'new-account',
  'new-order',
  'authz',
  'challenge',
  'validation',
  'finalize',
  'order poll',
  'download',
] as const;
export type OrderStep = (typeof ORDER_STEPS)[number];

/** How long the loader waits between two polls when the server gives no Retry-After. */
export const POLL_MS = 10;

export interface AcmeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Told of every request: which step it belongs to and how long it took (wall time, ms). */
export interface StepRecorder {
  around<T>(step: OrderStep, work: () => Promise<T>): Promise<T>;
}

const noRecorder: StepRecorder = { around: (_step, work) => work() };

/** Answers GET /.well-known/acme-challenge/{token} with the key authorization it was given. */
export class Http01Responder {
  readonly answers = new Map<string, string>();
  private constructor(private readonly server: Server) {}

  static async start(host: string, port: number): Promise<Http01Responder> {
    const answers = new Map<string, string>();
    const server = createServer((req, res) => {
      const token = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
      const answer = token ? answers.get(token) : undefined;
      res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain' }).end(answer ?? '');
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const responder = new Http01Responder(server);
    (responder as { answers: Map<string, string> }).answers = answers;
    return responder;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A DNS server on loopback UDP (RFC 1035 4) answering every A query with one IPv4 address; AAAA: no data. */
export class LoopbackDns {
  private constructor(private readonly socket: Socket) {}

  static async start(address: string): Promise<LoopbackDns> {
    const socket = createSocket('udp4');
    const octets = address.split('.').map(Number);
    socket.on('message', (query, remote) => {
      if (query.length < 12) return;
      // The question: QNAME labels, then QTYPE and QCLASS.
      let at = 12;
      while (at < query.length && query[at] !== 0) at += query[at] + 1;
      const questionEnd = at + 5;
      if (questionEnd > query.length) return;
      const type = query.readUInt16BE(at + 1);
      const header = Buffer.from(query.subarray(0, 12));
      header[2] = 0x84 | (query[2] & 0x01); // QR, AA, RD copied
      header[3] = 0x00;
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(type === 1 ? 1 : 0, 6);
      header.writeUInt16BE(0, 8);
      header.writeUInt16BE(0, 10);
      const parts = [header, query.subarray(12, questionEnd)];
      if (type === 1) {
        const answer = Buffer.alloc(16);
        answer.writeUInt16BE(0xc00c, 0); // name: pointer to the question's
        answer.writeUInt16BE(1, 2);
        answer.writeUInt16BE(1, 4);
        answer.writeUInt32BE(60, 6);
        answer.writeUInt16BE(4, 10);
        octets.forEach((o, i) => (answer[12 + i] = o));
        parts.push(answer);
      }
      socket.send(Buffer.concat(parts), remote.port, remote.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new LoopbackDns(socket);
  }

  get address(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/** A P-256 key and a PKCS#10 request naming `name` (CN and a dNSName SAN), as a client sends in finalize. */
export async function orderCsr(name: string): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const csr = new pkijs.CertificationRequest();
  csr.version = 0;
  csr.subject.typesAndValues.push(
    new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: name }) }),
  );
  await csr.subjectPublicKeyInfo.importKey(keys.publicKey as never);
  const san = new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 2, value: name })] });
  csr.attributes = [
    new pkijs.Attribute({
      type: '1.2.840.113549.1.9.14',
      values: [
        new pkijs.Extensions({
          extensions: [
            new pkijs.Extension({
              extnID: '2.5.29.17',
              critical: false,
              extnValue: san.toSchema().toBER(false),
            }),
          ],
        }).toSchema(),
      ],
    }),
  ];
  await csr.sign(keys.privateKey as never, 'SHA-256');
  return Buffer.from(csr.toSchema(true).toBER(false)).toString('base64url');
}

export interface AcmeLoadClientOptions {
  directoryUrl: string;
  /** Keep-alive agent shared by the workers (an https one for a TLS server). */
  agent: HttpAgent | HttpsAgent;
  responder: Http01Responder;
  /** RFC 8555 7.3.4, when the server requires it. */
  eab?: { keyId: string; hmacKey: string };
}

/** One ACME account and its nonces; `order()` carries one order through to the certificate. */
export class AcmeLoadClient {
  private readonly nonces: string[] = [];
  private directory!: Record<string, string>;
  private privateKey!: webcrypto.CryptoKey;
  private jwk!: JWK;
  private thumbprint!: string;
  private accountUrl?: string;
  /** Requests made, polls among them (for the report). */
  requests = 0;
  polls = 0;

  constructor(private readonly options: AcmeLoadClientOptions) {}

  async open(recorder: StepRecorder = noRecorder): Promise<void> {
    const directory = await this.call('GET', this.options.directoryUrl);
    if (directory.status !== 200) throw new Error(`directory: ${directory.status} ${directory.body}`);
    this.directory = JSON.parse(directory.body.toString()) as Record<string, string>;
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    this.privateKey = privateKey as webcrypto.CryptoKey;
    this.jwk = await exportJWK(publicKey);
    this.thumbprint = await calculateJwkThumbprint(this.jwk);
    await this.freshNonce();
    const url = this.directory.newAccount;
    const payload: Record<string, unknown> = { termsOfServiceAgreed: true };
    if (this.options.eab) {
      payload.externalAccountBinding = await new FlattenedSign(
        new TextEncoder().encode(JSON.stringify(this.jwk)),
      )
        .setProtectedHeader({ alg: 'HS256', kid: this.options.eab.keyId, url })
        .sign(Buffer.from(this.options.eab.hmacKey, 'base64url'));
    }
    const created = await recorder.around('new-account', () => this.post(url, payload, true));
    if (created.status !== 201 && created.status !== 200)
      throw new Error(`new-account: ${created.status} ${created.body}`);
    this.accountUrl = String(created.headers.location);
  }

  /** One order for `name`, new-order to download; `withNonceRequest` also asks new-nonce first (a client's first order). */
  async order(name: string, recorder: StepRecorder = noRecorder, withNonceRequest = false): Promise<string> {
    if (withNonceRequest) {
      this.nonces.length = 0;
      await recorder.around('new-nonce', () => this.freshNonce());
    }
    const created = await recorder.around('new-order', () =>
      this.post(this.directory.newOrder, { identifiers: [{ type: 'dns', value: name }] }),
    );
    if (created.status !== 201) throw new Error(`new-order: ${created.status} ${created.body}`);
    const orderUrl = String(created.headers.location);
    let order = JSON.parse(created.body.toString()) as {
      status: string;
      authorizations: string[];
      finalize: string;
      certificate?: string;
    };
    const authzUrl = order.authorizations[0];
    const authz = await recorder.around('authz', () => this.post(authzUrl, ''));
    if (authz.status !== 200) throw new Error(`authz: ${authz.status} ${authz.body}`);
    const challenge = (
      JSON.parse(authz.body.toString()) as { challenges: { type: string; url: string; token: string }[] }
    ).challenges.find((c) => c.type === 'http-01');
    if (!challenge) throw new Error('no http-01 challenge');
    this.options.responder.answers.set(challenge.token, `${challenge.token}.${this.thumbprint}`);
    try {
      const posted = await recorder.around('challenge', () => this.post(challenge.url, {}));
      if (posted.status !== 200) throw new Error(`challenge: ${posted.status} ${posted.body}`);
      let status = (JSON.parse(posted.body.toString()) as { status: string }).status;
      let retryAfter = posted.headers['retry-after'];
      while (status !== 'valid') {
        if (status === 'invalid') throw new Error(`validation failed: ${posted.body}`);
        await pause(retryAfter);
        const polled = await recorder.around('validation', () => this.post(authzUrl, ''));
        this.polls++;
        status = (JSON.parse(polled.body.toString()) as { status: string }).status;
        retryAfter = polled.headers['retry-after'];
      }
    } finally {
      this.options.responder.answers.delete(challenge.token);
    }
    const csr = await orderCsr(name);
    const finalized = await recorder.around('finalize', () => this.post(order.finalize, { csr }));
    if (finalized.status !== 200) throw new Error(`finalize: ${finalized.status} ${finalized.body}`);
    order = JSON.parse(finalized.body.toString()) as typeof order;
    let retryAfter = finalized.headers['retry-after'];
    while (order.status !== 'valid') {
      if (order.status === 'invalid') throw new Error(`order invalid: ${finalized.body}`);
      await pause(retryAfter);
      const polled = await recorder.around('order poll', () => this.post(orderUrl, ''));
      this.polls++;
      order = JSON.parse(polled.body.toString()) as typeof order;
      retryAfter = polled.headers['retry-after'];
    }
    const certificate = await recorder.around('download', () => this.post(order.certificate!, ''));
    if (certificate.status !== 200) throw new Error(`download: ${certificate.status} ${certificate.body}`);
    const pem = certificate.body.toString();
    if (!pem.startsWith('-----BEGIN CERTIFICATE-----')) throw new Error('download: not a PEM chain');
    return pem;
  }

  /** A new order for `name`; the URL of its (first) authorization, for requests of one kind. */
  async authorizationOf(name: string): Promise<string> {
    const created = await this.post(this.directory.newOrder, { identifiers: [{ type: 'dns', value: name }] });
    if (created.status !== 201) throw new Error(`new-order: ${created.status} ${created.body}`);
    return (JSON.parse(created.body.toString()) as { authorizations: string[] }).authorizations[0];
  }

  /** One POST-as-GET (RFC 8555 6.3) of `url`. */
  read(url: string): Promise<AcmeAnswer> {
    return this.post(url, '');
  }

  /** One HEAD new-nonce (RFC 8555 7.2). */
  headNonce(): Promise<AcmeAnswer> {
    return this.call('HEAD', this.directory.newNonce);
  }

  /** One GET of the directory (RFC 8555 7.1.1). */
  getDirectory(): Promise<AcmeAnswer> {
    return this.call('GET', this.options.directoryUrl);
  }

  private async freshNonce(): Promise<void> {
    const answer = await this.call('HEAD', this.directory.newNonce);
    const nonce = answer.headers['replay-nonce'];
    if (typeof nonce !== 'string') throw new Error(`new-nonce: ${answer.status}, no Replay-Nonce`);
    this.nonces.push(nonce);
  }

  /** A JWS POST (RFC 8555 6.2), its nonce from an earlier answer; a badNonce is retried once. */
  private async post(url: string, payload: unknown, withJwk = false, retried = false): Promise<AcmeAnswer> {
    if (this.nonces.length === 0) await this.freshNonce();
    const nonce = this.nonces.pop()!;
    const body = payload === '' ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(payload));
    const header = withJwk
      ? { alg: 'ES256', nonce, url, jwk: this.jwk }
      : { alg: 'ES256', nonce, url, kid: this.accountUrl };
    const jws = await new FlattenedSign(body).setProtectedHeader(header as never).sign(this.privateKey);
    const answer = await this.call('POST', url, JSON.stringify(jws));
    const next = answer.headers['replay-nonce'];
    if (typeof next === 'string') this.nonces.push(next);
    if (!retried && answer.status === 400 && answer.body.toString().includes(':badNonce')) {
      return this.post(url, payload, withJwk, true);
    }
    return answer;
  }

  private call(method: string, url: string, body?: string): Promise<AcmeAnswer> {
    this.requests++;
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        target,
        {
          method,
          agent: this.options.agent,
          headers:
            body === undefined
              ? {}
              : { 'content-type': 'application/jose+json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** A poll's wait: the server's Retry-After (capped at 1 s, a benchmark does not wait longer), else POLL_MS. */
function pause(retryAfter: string | string[] | undefined): Promise<void> {
  const seconds = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  const waitMs = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 1000) : POLL_MS;
  return new Promise((resolve) => setTimeout(resolve, waitMs));
}
